import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonlTrace } from '../exec/index.js';
import { buildRunSpec, runEval } from '../harness/index.js';
import { generate, resolveModelSetup } from '../models/index.js';
import { sampleSolver, type Task, type TaskSample } from '../tasks/index.js';
import { indexRun, newViewerToken, viewerApp } from '../viewer/index.js';
import { redactSecrets } from './index.js';

/*
 * Attack (issue 24, row 18): an endpoint answers 401 with a body that quotes the key it was sent
 * (as the Authorization header and as plain text). Through the real model client the error text
 * reached results.jsonl, the trace and the viewer. Now the key never lands there: `[REDACTED]` does.
 */

/** A configured key with no vendor prefix: only its registration can find it. */
const KEY = 'local-test-key-7f3a9c2e51b0d4';
/** A key-looking string that was never configured: found by its shape. */
const STRAY = 'sk-proj-Zx81Qw0Lm3Kp7Rt5Vy2N';

let server: Server;
let baseURL: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: {
          message: `Incorrect API key provided: ${auth.replace(/^Bearer /, '')}. You sent "${auth}"; try ${STRAY}`,
          type: 'invalid_request_error',
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The model as `--base-url … --model …` with the key in APIARY_API_KEY resolves it. */
const echoingModel = () =>
  resolveModelSetup(
    {},
    { env: { APIARY_BASE_URL: baseURL, APIARY_MODEL: 'm', APIARY_API_KEY: KEY }, cwd: tmpdir() },
  )!;

describe('an endpoint that echoes the API key in its 401 body', () => {
  it('the model client error names the failure, not the key', async () => {
    const { model } = echoingModel();
    const error = await generate({
      model,
      messages: [{ role: 'user', content: 'hi' }],
      retry: { maxRetries: 0 },
    }).catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'MODEL_CALL_FAILED' });
    const message = (error as Error).message;
    expect(message).toContain(
      'Incorrect API key provided: [REDACTED]. You sent "Bearer [REDACTED]"; try [REDACTED]',
    );
    expect(message).not.toContain(KEY);
    expect(message).not.toContain(STRAY);
  });

  it('a run through it writes no key to results.jsonl, the trace or the viewer', async () => {
    const { model } = echoingModel();
    const dir = mkdtempSync(join(tmpdir(), 'apiary-secrets-'));
    const outFile = join(dir, 'results.jsonl');
    const task: Task<TaskSample, string, number, number> = {
      name: 'echo',
      version: '1',
      dataset: [{ id: 'a' }, { id: 'b' }],
      solver: sampleSolver(async (sample) => {
        // sample b: a tool result that quotes the key verbatim (no boundary redacted it)
        if (sample.id === 'b') return { output: `the service said: key ${KEY} is invalid; Bearer ${KEY}` };
        const r = await generate({
          model,
          messages: [{ role: 'user', content: 'hi' }],
          retry: { maxRetries: 0 },
        });
        return { output: r.text };
      }),
      scorer: (_s, o) => (o.output ? 1 : 0),
      summarize: (xs) => xs.length,
    };
    const spec = buildRunSpec(
      {
        task: { name: 'echo', version: '1', options: {} },
        solver: { name: 'echo', options: {} },
        model: null,
        sampling: null,
        data: { path: 'memory', sha256: 'x' },
        size: 2,
        seed: 0,
        concurrency: 1,
      },
      { now: () => new Date(), gitRevision: () => null, packageVersion: () => 'test' },
    );
    await runEval({ task, spec, outFile });
    const results = readFileSync(outFile, 'utf8');
    expect(results).not.toContain(KEY);
    expect(results).not.toContain(STRAY);
    expect(results).toContain(
      'MODEL_CALL_FAILED: model call failed after 1 attempt(s) [fatal]: Incorrect API key provided: [REDACTED]',
    );
    expect(results).toContain('the service said: key [REDACTED] is invalid; Bearer [REDACTED]');

    // the trace: a call event whose result quotes the key (written last-pass redacted)
    const traceFile = join(dir, 'trace.jsonl');
    jsonlTrace(traceFile).write({
      event: 'error',
      run: 'r',
      time: '2026-01-01T00:00:00.000Z',
      step: 's1',
      app: 'Search',
      api: 'web',
      error: { code: 'TOOL_FAILED', message: `HTTP 401: {"detail":"bad key ${KEY}","auth":"Bearer ${KEY}"}` },
    });
    const trace = readFileSync(traceFile, 'utf8');
    expect(trace).not.toContain(KEY);
    expect(JSON.parse(trace).error.message).toBe(
      'HTTP 401: {"detail":"bad key [REDACTED]","auth":"Bearer [REDACTED]"}',
    );

    // the viewer, also on a record written before redaction existed (appended raw here)
    appendFileSync(
      outFile,
      `${JSON.stringify({
        type: 'sample',
        id: 'old',
        epoch: 1,
        category: null,
        output: null,
        error: `MODEL_CALL_FAILED: Incorrect API key provided: ${KEY}`,
        usage: null,
        modelCalls: 0,
        startedAt: '2026-01-02T03:04:09.000Z',
        durationMs: 5,
        score: 0,
      })}\n`,
    );
    process.env.APIARY_TEST_API_KEY = KEY; // the viewer process knows the key from its environment
    try {
      const token = newViewerToken();
      const app = viewerApp(await indexRun(dir), { token });
      const bodies: string[] = [];
      for (const route of ['/api/run', '/api/samples', '/api/samples/0', '/api/samples/1', '/api/samples/2'])
        bodies.push(await (await app.request(`http://127.0.0.1${route}?token=${token}`)).text());
      const all = bodies.join('\n');
      expect(all).not.toContain(KEY);
      const records = new Map(
        bodies.slice(2).map((b) => {
          const { record } = JSON.parse(b) as { record: { id: string; output: unknown; error: unknown } };
          return [record.id, record];
        }),
      );
      expect(records.get('old')!.error).toBe('MODEL_CALL_FAILED: Incorrect API key provided: [REDACTED]');
      expect(records.get('b')!.output).toBe('the service said: key [REDACTED] is invalid; Bearer [REDACTED]');
      expect(records.get('a')!.error).toMatch(
        /^MODEL_CALL_FAILED: .*Incorrect API key provided: \[REDACTED\]/,
      );
    } finally {
      delete process.env.APIARY_TEST_API_KEY;
    }
  });
});

describe('redactSecrets', () => {
  it('takes out bearer tokens and vendor-prefixed keys, in text and in JSON text; leaves prose alone', () => {
    expect(redactSecrets('Authorization: Bearer abc.DEF_123-xyz=')).toBe('Authorization: Bearer [REDACTED]');
    expect(redactSecrets(JSON.stringify({ m: `line\n${STRAY} end` }))).toBe('{"m":"line\\n[REDACTED] end"}');
    expect(redactSecrets('ghp_abcdefghijklmnopqrstuvwxyz0123456789 AKIAABCDEFGHIJKLMNOP')).toBe(
      '[REDACTED] [REDACTED]',
    );
    const prose = 'task-sk-1234, risk-management-department-plan, forbearer something, sha 9f86d081884c7d65';
    expect(redactSecrets(prose)).toBe(prose);
  });
});
