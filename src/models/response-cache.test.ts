import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../test/index.js';
import { generateWithRetry } from './generate-with-retry.js';
import { createResponseCache } from './response-cache.js';

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

    const first = await generateWithRetry({ model, system: 'S', user: 'U' });
    const second = await generateWithRetry({ model, system: 'S', user: 'U' });
    expect(first.text).toBe('answer 1');
    expect(second.text).toBe('answer 1');
    expect(second.usage).toEqual({ inputTokens: 10, outputTokens: 2 });
    expect(server.requests).toHaveLength(1);
    expect(cache.stats).toEqual({ hits: 1, misses: 1, writes: 1 });

    // a fresh process-like instance over the same folder
    const again = createResponseCache({ dir });
    const third = await generateWithRetry({ model: again.wrap(base), system: 'S', user: 'U' });
    expect(third.text).toBe('answer 1');
    expect(server.requests).toHaveLength(1);

    // a different prompt or different settings is a miss
    await generateWithRetry({ model, system: 'S', user: 'other' });
    await generateWithRetry({ model, system: 'S', user: 'U', settings: { maxOutputTokens: 50 } });
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
    const out = await generateWithRetry({ model, system: 'S', user: 'U' }, { sleep: async () => {} });
    expect(out.text).toBe('fine');
    expect(out.faults).toEqual(['http5xx']);
    expect(cache.stats.writes).toBe(1);
  });
});
