import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiaryError } from '../shared/index.js';
import { startScriptedOpenAiServer } from '../test/index.js';
import { checkModelEndpoint } from './check-endpoint.js';

/** A loopback port with nothing listening: bound, then released. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let toClose: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of toClose) await c();
  toClose = [];
});

async function statusServer(status: number): Promise<string> {
  const s: Server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"bad key"}}');
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  toClose.push(() => new Promise<void>((r) => s.close(() => r())));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`;
}

describe('checkModelEndpoint', () => {
  it('passes with GET /models on a live OpenAI-compatible server, without a chat request', async () => {
    const server = await startScriptedOpenAiServer({ respond: () => 'hi', modelIds: ['m1'] });
    toClose.push(() => server.close());
    expect(await checkModelEndpoint({ baseURL: server.url, modelId: 'm1' })).toEqual({ via: 'models' });
    expect(server.requests).toHaveLength(0);
  });

  it('falls back to a 1-token chat call when /models is not served', async () => {
    const server = await startScriptedOpenAiServer({ respond: () => 'hi', modelIds: null });
    toClose.push(() => server.close());
    expect(await checkModelEndpoint({ baseURL: server.url, modelId: 'm1' })).toEqual({ via: 'chat' });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body).toMatchObject({ model: 'm1', max_tokens: 1 });
  });

  it('a closed port fails at once with MODEL_UNREACHABLE naming the URL and the cause', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const err = await checkModelEndpoint({ baseURL: url, modelId: 'x' }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiaryError);
    expect(err.code).toBe('MODEL_UNREACHABLE');
    expect(err.message).toBe(
      `model endpoint ${url} did not answer: GET ${url}/models: connect ECONNREFUSED 127.0.0.1:${port}; ` +
        'check --base-url and that the server is running (--no-endpoint-check skips this check)',
    );
  });

  it('a refused API key (401) stops with the status', async () => {
    const url = await statusServer(401);
    const err = await checkModelEndpoint({ baseURL: url, modelId: 'x', apiKey: 'k' }).catch((e) => e);
    expect(err.code).toBe('MODEL_UNREACHABLE');
    expect(err.message).toBe(
      `model endpoint ${url} refused the request: GET ${url}/models: HTTP 401 {"error":{"message":"bad key"}}; ` +
        'check the API key (--api-key-env) (--no-endpoint-check skips this check)',
    );
  });

  it('a chat fallback that fails (HTTP 500 on both) stops with the chat status', async () => {
    const url = await statusServer(500);
    const err = await checkModelEndpoint({ baseURL: url, modelId: 'x' }).catch((e) => e);
    expect(err.code).toBe('MODEL_UNREACHABLE');
    expect(err.message).toBe(
      `model endpoint ${url} refused the request: POST ${url}/chat/completions: HTTP 500 {"error":{"message":"bad key"}}; ` +
        'check --base-url and --model (--no-endpoint-check skips this check)',
    );
  });
});
