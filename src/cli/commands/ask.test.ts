import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildRetriever, catalogCorpus } from '../../retrieval/index.js';
import {
  type ScriptedOpenAiServer,
  type ScriptedReply,
  startScriptedOpenAiServer,
} from '../../test/index.js';
import { startCli } from '../__fixtures__/run-cli.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';
import { writeTestEncoder } from '../__fixtures__/test-encoder.js';
import { executableCatalog } from './mcp.js';

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

let server: ScriptedOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const REQUEST = 'Find an American restaurant in San Francisco and reserve a table for 2 at 19:00';

/** The model a person would hope for: search, book the first result, confirm. */
async function bookingModel(latencyMs = 0): Promise<string> {
  let turn = 0;
  server = await startScriptedOpenAiServer({
    latencyMs,
    respond: (): ScriptedReply => {
      const t = turn++;
      if (t === 0)
        return {
          toolCalls: [
            {
              id: 'c1',
              name: 'Restaurants_findrestaurants',
              arguments: { category: 'American', location: 'San Francisco' },
            },
          ],
        };
      if (t === 1)
        return {
          toolCalls: [
            {
              id: 'c2',
              name: 'Restaurants_reserverestaurant',
              arguments: {
                restaurant_name: 'Acquerello',
                location: 'San Francisco',
                time: '19:00',
                number_of_seats: '2',
              },
            },
          ],
        };
      return 'Your table for 2 at Acquerello is booked for 19:00.';
    },
  });
  return server.url;
}

describe('apiary ask', () => {
  it('retrieves the APIs, runs the loop on the AppBench apps, approves the booking, prints the answer (--json)', async () => {
    const url = await bookingModel();
    const trace = join(mkdtempSync(join(tmpdir(), 'apiary-ask-')), 'trace.jsonl');
    const r = await apiary(
      'ask',
      REQUEST,
      '--catalog',
      'appbench',
      '--base-url',
      url,
      '--model',
      'm',
      '--approve',
      'auto',
      '--date',
      '2019-03-01',
      '--trace',
      trace,
      '--json',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.answer).toBe('Your table for 2 at Acquerello is booked for 19:00.');
    expect(out.stopReason).toBe('final');
    expect(out.retrieved).toHaveLength(8);
    expect(out.retrieved.slice(0, 2).sort()).toEqual([
      'Restaurants.findrestaurants',
      'Restaurants.reserverestaurant',
    ]);
    expect(out.calls.map((c: { api: string; ok: boolean }) => [c.api, c.ok])).toEqual([
      ['findrestaurants', true],
      ['reserverestaurant', true],
    ]);
    expect(out.calls[1].result).toMatchObject({ restaurant_name: 'Acquerello', number_of_seats: '2' });
    // only the retrieved APIs are offered, and the date reaches the system prompt
    const first = server!.requests[0]!;
    expect(first.body.tools).toHaveLength(9); // 8 retrieved + ask_user
    expect(first.messages[0]!.content).toContain('Today is 2019-03-01.');
    const events = readFileSync(trace, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).type);
    expect(events).toEqual(['turn', 'call', 'turn', 'call', 'turn', 'stop']);
  });

  it('with --approve deny the booking is refused, the line says so, and the exit status is 3 as in `run`', async () => {
    const url = await bookingModel();
    const r = await apiary('ask', REQUEST, '--base-url', url, '--model', 'm', '--approve', 'deny');
    // the same code and exit status `run` gives a refused booking (docs/errors.md: PERMISSION_DENIED, 3)
    expect(r.code).toBe(3);
    const lines = r.stdout.split('\n');
    expect(lines[1]).toBe(
      '  ✓ step 1 Restaurants.findrestaurants({"category":"American","location":"San Francisco"}) → 10 row(s)',
    );
    expect(lines[2]).toContain('✗ step 2 Restaurants.reserverestaurant(');
    // the code `run` reports for a refused booking (docs/errors.md)
    expect(lines[2]).toContain(
      '[PERMISSION_DENIED] transactional call Restaurants.reserverestaurant not approved: transactional calls are denied for this run',
    );
    // no --date: the model is told the simulated apps' date (SGD's), not today's
    expect(server!.requests[0]!.messages[0]!.content).toContain('Today is 2019-03-01.');
  });

  it('prints each call line as it happens, before the model has answered the next turn', async () => {
    // every model turn takes 1.5 s: the first call's line must be out while the run goes on
    const url = await bookingModel(1500);
    const run = startCli(['ask', REQUEST, '--base-url', url, '--model', 'm', '--approve', 'deny']);
    const t0 = Date.now();
    while (!run.out.stdout.includes('step 1 ')) {
      if (run.child.exitCode !== null || Date.now() - t0 > 30_000)
        throw new Error(`no call line while running: ${run.out.stdout}${run.out.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const early = run.out.stdout.split('\n');
    expect(early[0]).toMatch(/^retrieved: /);
    expect(early[1]).toBe(
      '  ✓ step 1 Restaurants.findrestaurants({"category":"American","location":"San Francisco"}) → 10 row(s)',
    );
    expect(run.out.stdout).not.toContain('step 2 ');
    const r = await run.done;
    expect(r.code).toBe(3); // the booking was refused (--approve deny)
    expect(r.stdout.split('\n').slice(0, 2)).toEqual(early.slice(0, 2));
  }, 30_000);

  it('--approve ask with no terminal: the calls are printed, the booking refused, then one USAGE line (exit 2)', async () => {
    const url = await bookingModel();
    const r = await apiary('ask', REQUEST, '--base-url', url, '--model', 'm', '--approve', 'ask');
    expect(r.code).toBe(2);
    const lines = r.stdout.split('\n');
    expect(lines[1]).toBe(
      '  ✓ step 1 Restaurants.findrestaurants({"category":"American","location":"San Francisco"}) → 10 row(s)',
    );
    expect(lines[2]).toContain('✗ step 2 Restaurants.reserverestaurant(');
    expect(lines[2]).toContain(
      '[PERMISSION_DENIED] transactional call Restaurants.reserverestaurant not approved: no terminal to ask on',
    );
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error'))).toEqual([
      'error [USAGE] --approve ask needs a terminal to ask on (stdin is not one); pass --approve auto or --approve deny (1 transactional call(s) refused)',
    ]);
  });

  it('retrieves with a dense encoder from --retriever-model: the ranking the library gives for that encoder', async () => {
    const { file, model } = writeTestEncoder(mkdtempSync(join(tmpdir(), 'apiary-ask-')));
    // what the CLI must retrieve: the library's dense ranking of the same catalog for this encoder
    const exec = await executableCatalog({ catalog: 'appbench' });
    const { catalog } = exec;
    const dense = await buildRetriever('dense', catalogCorpus(catalog), { dense: () => ({ model }) });
    const expected = (await dense.search(REQUEST, 500)).map((h) => catalog.apis[h.doc]?.id);
    await exec.close();
    const url = await bookingModel();
    const r = await apiary(
      'ask',
      REQUEST,
      '--retriever',
      'dense',
      '--retriever-model',
      file,
      '--top-k',
      '500',
      '--base-url',
      url,
      '--model',
      'm',
      '--approve',
      'auto',
      '--json',
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.retrieved).toEqual(expected);
    expect(out.retrieved).toContain('Restaurants.findrestaurants');
    expect(out.calls.map((c: { api: string; ok: boolean }) => [c.api, c.ok])).toEqual([
      ['findrestaurants', true],
      ['reserverestaurant', true],
    ]);
    const missing = await apiary('ask', REQUEST, '--retriever', 'dense', '--base-url', url, '--model', 'm');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      '--retriever dense needs --retriever-model FILE (from `apiary retrieve train --retriever dense`)',
    );
  });

  it('without a model it says how to configure one (exit 2)', async () => {
    const r = await apiary('ask', REQUEST);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('apiary ask needs a model: pass --base-url URL --model NAME');
  });

  it('checks its flags before any work', async () => {
    const r = await apiary(
      'ask',
      REQUEST,
      '--retriever',
      'magic',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--model',
      'm',
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--retriever must be one of bm25-plain | bm25 | bm25-tool');
    const k = await apiary(
      'ask',
      REQUEST,
      '--top-k',
      '0',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--model',
      'm',
    );
    expect(k.stderr).toContain('--top-k must be an integer ≥ 1 (got "0")');
  });

  it('refuses a catalog without executable apps', async () => {
    const r = await apiary(
      'ask',
      REQUEST,
      '--catalog',
      'shortcuts',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--model',
      'm',
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'catalog "shortcuts" has no executable apps here (executable: appbench, sgd, gta)',
    );
  });
});

describe('apiary ask checks its input and the endpoint before anything starts', () => {
  it('an empty request is a USAGE error (exit 2), nothing is asked of the model', async () => {
    for (const request of ['', '   ']) {
      const r = await apiary('ask', request, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm');
      expect([r.code, r.stdout, r.stderr]).toEqual([
        2,
        '',
        'error [USAGE] the request is empty: say in plain words what you want done\n',
      ]);
    }
  });

  /** A port nothing listens on, or a server that takes the connection and never answers. */
  async function listening(answer: boolean): Promise<{ url: string; close: () => Promise<void> }> {
    const held = new Set<Socket>();
    const server = createServer((socket) => {
      held.add(socket); // hold it open, say nothing
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    const close = () =>
      new Promise<void>((r) => {
        for (const socket of held) socket.destroy();
        server.close(() => r());
      });
    if (answer) await close(); // closed: the port refuses connections
    return {
      url: `http://127.0.0.1:${port}/v1`,
      close: () => (server.listening ? close() : Promise.resolve()),
    };
  }

  it.each([
    ['refuses connections', true, 'connect ECONNREFUSED'],
    ['never answers', false, 'no answer before the timeout'],
  ])('an endpoint that %s: one MODEL_UNREACHABLE line within 5 s, exit 3', async (_, closed, cause) => {
    const endpoint = await listening(closed);
    const t0 = performance.now();
    const r = await apiary('ask', REQUEST, '--base-url', endpoint.url, '--model', 'm', '--approve', 'deny');
    const seconds = (performance.now() - t0) / 1000;
    server = { close: endpoint.close } as ScriptedOpenAiServer;
    expect(seconds).toBeLessThan(5);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^error \\[MODEL_UNREACHABLE\\] model endpoint ${endpoint.url.replace(/\./g, '\\.')} did not answer: GET ${endpoint.url.replace(/\./g, '\\.')}/models: ${cause}.*; check --base-url and that the server is running \\(--no-endpoint-check skips this check\\)$`,
      ),
    );
  });
});
