import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiCompatibleEmbedder } from './openai-embedder.js';

// A minimal OpenAI-compatible /v1/embeddings server on loopback: vector = [length, vowels, 1].
let server: Server;
let url = '';
const bodies: Array<{ input: unknown; model: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      if (req.url !== '/v1/embeddings') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw);
      bodies.push(body);
      if (body.model === 'broken') {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'bad model' } }));
        return;
      }
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const data = input.map((t, index) => ({
        object: 'embedding',
        index,
        embedding: body.model === 'short' ? [1] : [t.length, (t.match(/[aeiou]/g) ?? []).length, 1],
      }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          data,
          model: body.model,
          usage: { prompt_tokens: 1, total_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('OpenAiCompatibleEmbedder', () => {
  it('embeds through /embeddings in batches', async () => {
    const e = new OpenAiCompatibleEmbedder({ baseURL: url, model: 'toy', dimension: 3, batchSize: 2 });
    const out = await e.embed(['abc', 'aeiou', 'xyz']);
    expect(out.map((v) => Array.from(v))).toEqual([
      [3, 1, 1],
      [5, 5, 1],
      [3, 0, 1],
    ]);
    expect(bodies.slice(-2).map((b) => b.input)).toEqual([['abc', 'aeiou'], ['xyz']]);
    expect(e.name).toBe('openai-compatible(toy)');
  });

  it('reports endpoint errors and wrong dimensions as MODEL_CALL_FAILED', async () => {
    const bad = new OpenAiCompatibleEmbedder({ baseURL: url, model: 'broken', dimension: 3, maxRetries: 0 });
    await expect(bad.embed(['x'])).rejects.toMatchObject({ code: 'MODEL_CALL_FAILED' });
    const short = new OpenAiCompatibleEmbedder({ baseURL: url, model: 'short', dimension: 3 });
    await expect(short.embed(['x'])).rejects.toThrow(/dimension 1, expected 3/);
  });
});
