import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GtaEmbedder, simScore } from '../benchmarks/gta/index.js';
import { ApiaryError } from '../shared/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../test/index.js';
import { hashedBagOfWords } from '../test/scripted-openai-server.js';
import { createEmbeddingsClient, embeddingsClientFromEnv } from './embeddings.js';
import { modelEndpointFromEnv } from './model-endpoint.js';

let server: ScriptedOpenAiServer;
beforeAll(async () => {
  server = await startScriptedOpenAiServer({ respond: () => 'unused', embeddingDimension: 16 });
});
afterAll(() => server.close());

describe('embeddings client on a scripted /v1/embeddings endpoint', () => {
  it('batches the distinct unseen texts, caches vectors and returns them in input order', async () => {
    const client = createEmbeddingsClient({
      endpoint: { baseURL: server.url, model: 'mpnet', apiKey: 'k' },
      batchSize: 2,
    });
    const before = server.requests.length;
    const out = await client.embed(['red apple', 'green pear', 'red apple', 'blue plum']);
    expect(out).toEqual([
      hashedBagOfWords('red apple', 16),
      hashedBagOfWords('green pear', 16),
      hashedBagOfWords('red apple', 16),
      hashedBagOfWords('blue plum', 16),
    ]);
    const sent = server.requests.slice(before);
    expect(sent.map((r) => [r.path, r.model, r.body.input])).toEqual([
      ['/v1/embeddings', 'mpnet', ['red apple', 'green pear']],
      ['/v1/embeddings', 'mpnet', ['blue plum']],
    ]);
    expect(sent[0]!.headers.authorization).toBe('Bearer k');
    expect(client.stats).toEqual({ requests: 2, embedded: 3, cacheHits: 1 });
    // a second call with one new text sends only that one
    await client.embed(['blue plum', 'yellow fig', 'red apple']);
    expect(server.requests.slice(before + 2).map((r) => r.body.input)).toEqual([['yellow fig']]);
    expect(client.stats).toEqual({ requests: 3, embedded: 4, cacheHits: 3 });
  });

  it('drops the least recently used vector when the cache is full', async () => {
    const client = createEmbeddingsClient({ endpoint: { baseURL: server.url, model: 'm' }, cacheSize: 2 });
    await client.embed(['a1', 'b2']);
    await client.embed(['a1']); // a1 is now the most recent
    await client.embed(['c3']); // evicts b2
    const before = server.requests.length;
    await client.embed(['a1', 'b2', 'c3']);
    expect(server.requests.slice(before).map((r) => r.body.input)).toEqual([['b2']]);
  });

  it("is GTA's embedder: simScore is the clipped best cosine over the references", async () => {
    const embedder: GtaEmbedder = createEmbeddingsClient({ endpoint: { baseURL: server.url, model: 'm' } });
    // identical bags of words → cosine 1; no shared word → the hashed vectors' cosine, clipped at 0
    expect(await simScore('the cat sat', ['dogs bark', 'sat the cat'], embedder)).toBeCloseTo(1, 12);
    const a = hashedBagOfWords('cat', 16);
    const b = hashedBagOfWords('dog', 16);
    const dot = a.reduce((s, x, i) => s + x * b[i]!, 0);
    expect(await simScore('cat', ['dog'], embedder)).toBeCloseTo(Math.max(0, dot), 12);
  });

  it('reads its endpoint from APIARY_EMBEDDINGS_* variables', async () => {
    expect(embeddingsClientFromEnv({})).toBeUndefined();
    const client = embeddingsClientFromEnv({}, { baseURL: server.url, model: 'flagged' })!;
    await client.embed(['hello world']);
    expect(server.requests.at(-1)!.model).toBe('flagged');
    expect(
      modelEndpointFromEnv('embeddings', {
        APIARY_EMBEDDINGS_BASE_URL: 'http://h/v1',
        APIARY_EMBEDDINGS_MODEL: 'e',
      }),
    ).toEqual({
      baseURL: 'http://h/v1',
      model: 'e',
    });
  });
});

describe('embeddings client errors', () => {
  let failing: Server;
  let url: string;
  const answers: { status: number; body: string }[] = [];
  beforeAll(async () => {
    failing = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const a = answers.shift() ?? { status: 404, body: '{}' };
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(a.body);
      });
    });
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => failing.close(() => r())));

  it('HTTP 500, a body that is not JSON and a wrong vector count are MODEL_CALL_FAILED', async () => {
    const client = createEmbeddingsClient({ endpoint: { baseURL: url, model: 'm' }, maxRetries: 0 });
    answers.push({ status: 500, body: '{"error":{"message":"overloaded"}}' });
    const err = (await client.embed(['x']).catch((e: unknown) => e)) as ApiaryError;
    expect(err).toBeInstanceOf(ApiaryError);
    expect(err.code).toBe('MODEL_CALL_FAILED');
    expect(err.message).toBe(`embeddings model m at ${url} failed: overloaded`);
    answers.push({ status: 200, body: '{"data": [' });
    await expect(client.embed(['x'])).rejects.toThrow(`embeddings model m at ${url} failed: `);
    answers.push({ status: 200, body: JSON.stringify({ data: [{ embedding: [1, 0] }] }) });
    await expect(client.embed(['x', 'y'])).rejects.toThrow('embeddings model m: 1 vectors for 2 texts');
  });
});
