import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiaryError } from '../../shared/index.js';
import { writeTinyGguf } from '../../test/index.js';
import { generate } from '../generate.js';
import { resolveModelSetup } from '../resolve-model.js';
import { createResponseCache } from '../response-cache.js';
import { checkGgufFile, createSerialQueue } from './llama-runtime.js';
import { createLocalModel, LocalLanguageModel } from './local-model.js';
import { toolCallText } from './local-prompt.js';

const dir = mkdtempSync(join(tmpdir(), 'apiary-local-model-'));
const tiny = join(dir, 'tiny.gguf');
// one thread: on a shared 2-core machine two llama.cpp threads spin against each other (100× slower)
const settings = { path: tiny, threads: 1 };

const BOOK = {
  book: {
    description: 'book a table',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string', enum: ['Paris', 'Rome'] }, people: { type: 'integer' } },
      required: ['city', 'people'],
    },
  },
};

beforeAll(async () => {
  writeTinyGguf(tiny, { seed: 1 });
  await createLocalModel(settings).load();
}, 60_000);

async function errorOf(run: () => unknown): Promise<ApiaryError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiaryError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('a GGUF file that is not a model', () => {
  it('a missing file is NOT_FOUND naming it', async () => {
    const missing = join(dir, 'missing.gguf');
    const e = await errorOf(() => createLocalModel({ path: missing }).load());
    expect([e.code, e.message]).toEqual([
      'NOT_FOUND',
      `model file not found: ${missing} (Apiary never downloads a model)`,
    ]);
  });

  it('a text file is INPUT_INVALID: it does not start with the GGUF magic', async () => {
    const text = join(dir, 'notes.gguf');
    writeFileSync(text, 'hello world\n');
    const e = await errorOf(() => checkGgufFile(text));
    expect([e.code, e.message]).toEqual([
      'INPUT_INVALID',
      `${text}: not a GGUF model file (a GGUF file starts with "GGUF", this one with "hell")`,
    ]);
  });

  it('a truncated file is INPUT_INVALID with llama.cpp’s reason', async () => {
    const truncated = join(dir, 'truncated.gguf');
    writeFileSync(truncated, readFileSync(tiny).subarray(0, 200_000));
    const e = await errorOf(() => createLocalModel({ ...settings, path: truncated }).load());
    expect(e.code).toBe('INPUT_INVALID');
    expect(e.message).toBe(
      `${truncated}: llama.cpp could not load this GGUF file (truncated or corrupt?): ` +
        "llama_model_load: error loading model: tensor 'output.weight' data is not within the file bounds, model is corrupted or incomplete",
    );
  });
});

describe('the serial queue of a context', () => {
  it('runs jobs one at a time in order, counts them, and drops an aborted waiting job', async () => {
    const queue = createSerialQueue();
    const order: string[] = [];
    let release!: () => void;
    const first = queue.run(
      () =>
        new Promise<void>((r) => {
          order.push('a');
          release = r;
        }),
    );
    const ac = new AbortController();
    const dropped = queue.run(async () => order.push('dropped'), ac.signal);
    const third = queue.run(async () => order.push('c'));
    expect(queue.depth).toBe(3);
    ac.abort(new Error('stop'));
    await new Promise((r) => setTimeout(r, 0));
    release();
    await first;
    await expect(dropped).rejects.toThrow('stop');
    await third;
    expect(order).toEqual(['a', 'c']);
    expect(queue.depth).toBe(0);
  });
});

describe('LocalLanguageModel on the tiny random model', { timeout: 60_000 }, () => {
  it('tools: the grammar makes one valid call of an offered tool, deterministic at temperature 0', async () => {
    const model = createLocalModel(settings);
    const call = () =>
      generate({
        model,
        system: 'You book restaurants.',
        messages: [{ role: 'user', content: 'Book a table for two in Rome' }],
        tools: BOOK,
        settings: { temperature: 0, maxOutputTokens: 120 },
      });
    const out = await call();
    expect(out.finishReason).toBe('tool-calls');
    expect(out.toolCalls).toHaveLength(1);
    const c = out.toolCalls[0]!;
    expect(c.name).toBe('book');
    expect(c.invalid).toBeUndefined();
    const input = c.input as { city: string; people: number };
    expect(['Paris', 'Rome']).toContain(input.city);
    expect(Number.isInteger(input.people)).toBe(true);
    expect(out.usage.inputTokens).toBeGreaterThan(100);
    expect(out.usage.outputTokens).toBeGreaterThan(5);
    const again = await call();
    expect(again.toolCalls.map((t) => t.input)).toEqual(out.toolCalls.map((t) => t.input));
    expect(again.usage).toEqual(out.usage);
  });

  it('--constrain off: the same request gives text that is no call (the format error the grammar prevents)', async () => {
    const out = await generate({
      model: createLocalModel({ ...settings, constrain: false }),
      messages: [{ role: 'user', content: 'Book a table for two in Rome' }],
      tools: BOOK,
      settings: { temperature: 0, maxOutputTokens: 40 },
    });
    expect(out.toolCalls).toEqual([]);
    expect(out.finishReason).toBe('length');
    expect(out.usage.outputTokens).toBe(40);
  });

  it('a call cut off by the token limit stays a call the caller cannot decode (not a final answer)', async () => {
    const out = await generate({
      model: createLocalModel(settings),
      messages: [{ role: 'user', content: 'Book a table for two in Rome' }],
      tools: BOOK,
      settings: { temperature: 0, maxOutputTokens: 12 },
    });
    expect(out.finishReason).toBe('length');
    expect(out.toolCalls).toHaveLength(1);
    expect(out.toolCalls[0]!.name).toBe('book');
    expect(out.toolCalls[0]!.inputText).toBe('{ "tool": "book');
    expect(out.toolCalls[0]!.invalid).toContain('JSON parsing failed');
    expect(out.text).toBe('');
  });

  it('a required tool choice allows no final answer; an earlier call is shown in the same format', async () => {
    const out = await generate({
      model: createLocalModel(settings),
      messages: [
        { role: 'user', content: 'Book Paris' },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'c1', toolName: 'book', input: { city: 'Paris', people: 2 } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'book',
              output: { type: 'json', value: { ok: 1 } },
            },
          ],
        },
      ],
      tools: BOOK,
      toolChoice: 'required',
      settings: { temperature: 0, maxOutputTokens: 120 },
    });
    expect(out.toolCalls.map((c) => c.name)).toEqual(['book']);
    expect(toolCallText('book', { city: 'Paris' })).toBe('{"tool":"book","arguments":{"city":"Paris"}}');
  });

  it('a grammar sent as generate({ constraint }) is the only output possible', async () => {
    const out = await generate({
      model: createLocalModel(settings),
      messages: [{ role: 'user', content: 'yes or no?' }],
      constraint: { name: 'yes-no', grammar: 'root ::= "yes" | "no"' },
      settings: { maxOutputTokens: 20 },
    });
    expect(['yes', 'no']).toContain(out.text);
    expect(out.finishReason).toBe('stop');
  });

  it('never samples BOS or <unk> (the grammar reads them as text the response drops): 200 short strings all in bounds', async () => {
    const model = createLocalModel(settings);
    const lengths: number[] = [];
    for (let seed = 0; seed < 200; seed++) {
      const result = await model.doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'a word' }] }],
        maxOutputTokens: 12,
        temperature: 1,
        seed,
        responseFormat: { type: 'json', schema: { type: 'string', minLength: 2, maxLength: 4 } },
      });
      lengths.push((JSON.parse((result.content[0] as { text: string }).text) as string).length);
    }
    expect(lengths.filter((n) => n < 2 || n > 4)).toEqual([]);
  }, 60_000);

  it('a JSON response format is decoded under its schema', async () => {
    const model = createLocalModel(settings);
    const result = await model.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'a colour' }] }],
      maxOutputTokens: 60,
      responseFormat: {
        type: 'json',
        schema: { type: 'object', properties: { colour: { enum: ['red', 'blue'] } }, required: ['colour'] },
      },
    });
    const text = (result.content[0] as { text: string }).text;
    expect(['red', 'blue']).toContain(JSON.parse(text).colour);
  });

  it('the response cache keeps constrained and free answers, and files of one name, apart', async () => {
    const cache = createResponseCache({ dir: mkdtempSync(join(tmpdir(), 'apiary-local-cache-')) });
    const ask = (options: Parameters<typeof createLocalModel>[0]) =>
      generate({
        model: cache.wrap(createLocalModel(options)),
        messages: [{ role: 'user', content: 'hi' }],
        settings: { temperature: 0, maxOutputTokens: 5 },
      });
    const other = join(mkdtempSync(join(tmpdir(), 'apiary-local-other-')), 'tiny.gguf');
    writeTinyGguf(other, { seed: 1 });
    await ask(settings);
    await ask(settings);
    await ask({ ...settings, constrain: false });
    await ask({ ...settings, path: other });
    expect(cache.stats).toMatchObject({ hits: 1, misses: 3, writes: 3 });
    expect(createLocalModel({ path: tiny, constrain: false }).provider).toBe(
      `apiary.local(${tiny})+unconstrained`,
    );
  });

  it('an aborted signal stops the call with its reason', async () => {
    const ac = new AbortController();
    ac.abort(new Error('cancelled by the caller'));
    await expect(
      createLocalModel(settings).doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        abortSignal: ac.signal,
      }),
    ).rejects.toThrow('cancelled by the caller');
  });
});

describe('resolveModelSetup with gguf:PATH', () => {
  const deps = { env: {}, cwd: dir, exists: () => false };

  it('is a local model: the file resolved against the working folder, no endpoint, nothing loaded yet', () => {
    const setup = resolveModelSetup(
      { model: 'gguf:tiny.gguf', local: { threads: 1, constrain: false } },
      deps,
    );
    expect(setup?.model).toBeInstanceOf(LocalLanguageModel);
    expect(setup?.modelId).toBe('gguf:tiny.gguf');
    expect(setup?.baseURL).toBe(`gguf:${tiny}`);
    expect(setup?.local).toEqual({ path: tiny, threads: 1, constrain: false });
    expect(setup?.apiKeySource).toBeUndefined();
  });

  it('refuses --base-url beside a gguf model, and the local flags with any other model', () => {
    expect(() =>
      resolveModelSetup({ model: 'gguf:tiny.gguf', baseURL: 'http://localhost:8000/v1' }, deps),
    ).toThrow(
      '--model gguf:tiny.gguf runs in process: --base-url http://localhost:8000/v1 is for a served model (drop one of the two)',
    );
    expect(() => resolveModelSetup({ model: 'gpt-4o', local: { threads: 2 } }, deps)).toThrow(
      '--threads, --ctx-size, --gpu-layers and --constrain apply to local models (--model gguf:PATH), not to gpt-4o',
    );
    expect(() => resolveModelSetup({ model: 'gguf:' }, deps)).toThrow(
      '--model gguf: names no file: pass --model gguf:PATH/TO/model.gguf',
    );
  });
});
