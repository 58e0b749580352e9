import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../test/index.js';
import { generate, type ModelToolSpec } from './generate.js';
import { createResponseCache, wasCacheHit } from './response-cache.js';

let server: ScriptedOpenAiServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('createResponseCache', () => {
  it('answers a repeated call from disk without a request, also across cache instances', async () => {
    let n = 0;
    server = await startScriptedOpenAiServer({
      respond: () => ({ text: `answer ${++n}`, usage: { prompt_tokens: 10, completion_tokens: 2 } }),
    });
    const dir = mkdtempSync(join(tmpdir(), 'apiary-cache-'));
    dirs.push(dir);
    const base = createOpenAICompatible({ name: 'scripted', baseURL: server.url })('m');
    const cache = createResponseCache({ dir });
    const model = cache.wrap(base);

    const first = await generate({ model, system: 'S', messages: [{ role: 'user', content: 'U' }] });
    const second = await generate({ model, system: 'S', messages: [{ role: 'user', content: 'U' }] });
    expect(first.text).toBe('answer 1');
    expect(second.text).toBe('answer 1');
    expect(second.usage).toEqual({ inputTokens: 10, outputTokens: 2 });
    expect(server.requests).toHaveLength(1);
    expect(cache.stats).toEqual({ hits: 1, misses: 1, writes: 1 });

    // a fresh process-like instance over the same folder
    const again = createResponseCache({ dir });
    const third = await generate({
      model: again.wrap(base),
      system: 'S',
      messages: [{ role: 'user', content: 'U' }],
    });
    expect(third.text).toBe('answer 1');
    expect(server.requests).toHaveLength(1);

    // a different prompt or different settings is a miss
    await generate({ model, system: 'S', messages: [{ role: 'user', content: 'other' }] });
    await generate({
      model,
      system: 'S',
      messages: [{ role: 'user', content: 'U' }],
      settings: { maxOutputTokens: 50 },
    });
    expect(server.requests).toHaveLength(3);
    const files = readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.json'));
    expect(files).toHaveLength(3);
  });

  it('does not cache failures', async () => {
    let n = 0;
    server = await startScriptedOpenAiServer({ respond: () => (++n === 1 ? { fault: 'http500' } : 'fine') });
    const dir = mkdtempSync(join(tmpdir(), 'apiary-cache-'));
    dirs.push(dir);
    const cache = createResponseCache({ dir });
    const model = cache.wrap(createOpenAICompatible({ name: 'scripted', baseURL: server.url })('m'));
    const out = await generate(
      { model, system: 'S', messages: [{ role: 'user', content: 'U' }] },
      { sleep: async () => {} },
    );
    expect(out.text).toBe('fine');
    expect(out.faults).toEqual(['http5xx']);
    expect(cache.stats.writes).toBe(1);
  });

  it('keys on tools and tool choice, and generate reports hits with the stored usage', async () => {
    let n = 0;
    server = await startScriptedOpenAiServer({
      respond: () => ({
        toolCalls: [{ id: `c${++n}`, name: 'lookup', arguments: '{"q": "x"}' }],
        usage: { prompt_tokens: 40, completion_tokens: 6 },
      }),
    });
    const dir = mkdtempSync(join(tmpdir(), 'apiary-cache-'));
    dirs.push(dir);
    const cache = createResponseCache({ dir });
    const model = cache.wrap(createOpenAICompatible({ name: 'scripted', baseURL: server.url })('m'));
    const tools: Record<string, ModelToolSpec> = {
      lookup: {
        description: 'Look up',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      },
    };
    const request = { model, system: 'S', messages: [{ role: 'user' as const, content: 'find x' }], tools };

    const first = await generate(request);
    const second = await generate(request);
    expect([first.cacheHit, second.cacheHit]).toEqual([false, true]);
    expect(server.requests).toHaveLength(1);
    expect(second.toolCalls).toEqual([
      { id: 'c1', name: 'lookup', input: { q: 'x' }, inputText: '{"q": "x"}' },
    ]);
    expect(second.usage).toEqual({ inputTokens: 40, outputTokens: 6 });

    // other tools (a changed description) or another tool choice: misses
    await generate({ ...request, tools: { lookup: { ...tools.lookup!, description: 'Search' } } });
    await generate({ ...request, toolChoice: 'required' });
    await generate({ ...request, toolChoice: { type: 'tool', toolName: 'lookup' } });
    expect(server.requests).toHaveLength(4);
    await generate({ ...request, toolChoice: 'required' });
    expect(server.requests).toHaveLength(4);
    expect(cache.stats).toEqual({ hits: 2, misses: 4, writes: 4 });
  });
});

describe('wasCacheHit', () => {
  it('reads the apiary provider metadata', () => {
    expect(wasCacheHit({ apiary: { cacheHit: true } })).toBe(true);
    expect(wasCacheHit({ apiary: {} })).toBe(false);
    expect(wasCacheHit(undefined)).toBe(false);
  });
});
