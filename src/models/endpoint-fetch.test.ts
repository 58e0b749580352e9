import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ScriptedReply, startScriptedOpenAiServer } from '../test/index.js';
import { createEndpointFetch } from './endpoint-fetch.js';
import { generate } from './generate.js';
import { resolveModelSetup } from './resolve-model.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.unstubAllGlobals();
  for (const close of closers.splice(0)) await close();
});

/** A plain server that counts its connections and answers with `answer(path)`. */
async function countingServer(
  answer: (path: string, res: import('node:http').ServerResponse) => void = (_p, res) => res.end('{}'),
  delayMs = 0,
): Promise<{ url: string; connections: () => number; server: Server }> {
  let connections = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => answer(req.url ?? '', res), delayMs));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  closers.push(() => server.closeAllConnections());
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, connections: () => connections, server };
}

const post = (f: typeof fetch, url: string, body = '{}') =>
  f(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('createEndpointFetch', () => {
  it('keeps sockets alive: 5 requests one after another use 1 connection, 8 at once use 8', async () => {
    const s = await countingServer(undefined, 20);
    const f = createEndpointFetch();
    for (let i = 0; i < 5; i++) expect(await (await post(f, s.url)).text()).toBe('{}');
    expect(s.connections()).toBe(1);
    await Promise.all(Array.from({ length: 8 }, () => post(f, s.url).then((r) => r.text())));
    expect(s.connections()).toBe(8);
  });

  it('a sized pool queues requests beyond maxSockets on its sockets', async () => {
    const s = await countingServer(undefined, 20);
    const f = createEndpointFetch({ maxSockets: 2 });
    const texts = await Promise.all(Array.from({ length: 6 }, () => post(f, s.url).then((r) => r.text())));
    expect(texts).toEqual(Array(6).fill('{}'));
    expect(s.connections()).toBe(2);
  });

  it('sends the caller headers, content-length and fetch defaults; gives status, headers and body back', async () => {
    let seen: import('node:http').IncomingHttpHeaders = {};
    const s = await countingServer();
    s.server.removeAllListeners('request');
    s.server.on('request', (req, res) => {
      seen = req.headers;
      req.resume();
      res.writeHead(418, 'Teapot', { 'x-a': '1', 'set-cookie': ['a=1', 'b=2'] });
      res.end('short and stout');
    });
    const res = await createEndpointFetch()(`${s.url}/v1/chat`, {
      method: 'POST',
      body: 'é{}',
      headers: { Authorization: 'Bearer k', 'user-agent': 'ai/6' },
    });
    expect([seen.authorization, seen['user-agent'], seen['content-length'], seen.accept]).toEqual([
      'Bearer k',
      'ai/6',
      '4',
      '*/*',
    ]);
    expect([res.status, res.statusText, res.ok, res.headers.get('x-a')]).toEqual([418, 'Teapot', false, '1']);
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await res.text()).toBe('short and stout');
  });

  it('decodes a gzip body', async () => {
    const s = await countingServer((_p, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(gzipSync('{"zipped":true}'));
    });
    expect(await (await post(createEndpointFetch(), s.url)).json()).toEqual({ zipped: true });
  });

  it('rejects with the abort reason, before and during a request', async () => {
    const s = await countingServer(undefined, 500);
    const f = createEndpointFetch();
    const early = new AbortController();
    early.abort(new DOMException('too late', 'TimeoutError'));
    const before = await f(s.url, { method: 'POST', body: '', signal: early.signal }).catch((e) => e);
    expect([before.name, before.message]).toEqual(['TimeoutError', 'too late']);
    const ac = new AbortController();
    const during = f(s.url, { method: 'POST', body: '', signal: ac.signal }).catch((e) => e);
    setTimeout(() => ac.abort(), 20);
    expect((await during).name).toBe('AbortError');
  });

  it('rejects a refused connection as fetch does: TypeError "fetch failed" caused by ECONNREFUSED', async () => {
    const s = await countingServer();
    const url = s.url;
    await new Promise<void>((r) => s.server.close(() => r()));
    const err = await post(createEndpointFetch(), url).catch((e) => e);
    const viaFetch = await post(fetch, url).catch((e) => e);
    expect([err.constructor, err.message, err.cause.code]).toEqual([
      TypeError,
      'fetch failed',
      'ECONNREFUSED',
    ]);
    expect([viaFetch.message, viaFetch.cause.code]).toEqual([err.message, err.cause.code]);
  });

  it('leaves a GET, a non-string body and a redirect to the global fetch', async () => {
    const s = await countingServer((path, res) => {
      if (path === '/old') {
        res.writeHead(307, { location: '/new' });
        res.end();
      } else res.end(`at ${path}`);
    });
    const spy = vi.fn(fetch);
    vi.stubGlobal('fetch', spy);
    const f = createEndpointFetch();
    expect(await (await f(`${s.url}/get`)).text()).toBe('at /get');
    expect(await (await f(`${s.url}/bytes`, { method: 'POST', body: new Uint8Array([1]) })).text()).toBe(
      'at /bytes',
    );
    expect(spy).toHaveBeenCalledTimes(2);
    expect(await (await post(f, `${s.url}/old`)).text()).toBe('at /new');
    expect(spy).toHaveBeenCalledTimes(3);
    expect(await (await post(f, `${s.url}/plain`)).text()).toBe('at /plain');
    expect(spy).toHaveBeenCalledTimes(3);
  });
});

describe('models of resolveModelSetup', () => {
  it('post through the shared endpoint fetch, not the global fetch', async () => {
    const server = await startScriptedOpenAiServer({ respond: () => 'pong' });
    closers.push(() => server.close());
    vi.stubGlobal('fetch', () => Promise.reject(new Error('the global fetch was used')));
    const setup = resolveModelSetup({ baseURL: server.url, model: 'scripted' }, { env: {}, cwd: '/' })!;
    const out = await generate({ model: setup.model, messages: [{ role: 'user', content: 'ping' }] });
    expect(out.text).toBe('pong');
  });

  it('give generate the same answers, faults and errors as the global fetch, with the same request bodies', async () => {
    const replies: ScriptedReply[] = [
      { text: 'plain', usage: { prompt_tokens: 3, completion_tokens: 1 } },
      { toolCalls: [{ name: 'get_time', arguments: { tz: 'UTC' } }] },
      { fault: 'http429', headers: { 'retry-after': '1' } },
      { fault: 'http500' },
      { fault: 'invalid-json' },
      { fault: 'empty-choices' },
    ];
    const outcomes: Record<string, unknown[]> = {};
    for (const [name, f] of [
      ['global', fetch],
      ['endpoint', createEndpointFetch()],
    ] as const) {
      let i = 0;
      const server = await startScriptedOpenAiServer({ respond: () => replies[i++]! });
      closers.push(() => server.close());
      const model = createOpenAICompatible({
        name: 'apiary',
        baseURL: server.url,
        includeUsage: true,
        fetch: f,
      })('m');
      outcomes[name] = [];
      for (const _ of replies) {
        const out = await generate({
          model,
          system: 'S',
          messages: [{ role: 'user', content: 'q' }],
          tools: { get_time: { inputSchema: { type: 'object', properties: { tz: { type: 'string' } } } } },
          retry: { maxRetries: 0 },
        }).then(
          (r) => ({ ...r, latencyMs: 0 }),
          (e: Error & { faults?: string[] }) => ({ message: e.message, faults: e.faults }),
        );
        outcomes[name].push(out);
      }
      outcomes[name].push(server.requests.map((r) => JSON.stringify(r.body)));
    }
    expect(outcomes.endpoint).toEqual(outcomes.global);
    expect((outcomes.endpoint![3] as { faults: string[] }).faults).toEqual(['http5xx']);
  });
});
