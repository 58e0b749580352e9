import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseJsonActionReply } from '../agents/protocols/json-action.js';
import { parseReactArguments } from '../agents/protocols/react.js';
import { parseAppBenchPredictions } from '../benchmarks/appbench/score-predictions.js';
import { parseJson } from '../benchmarks/shortcutsbench/json-value.js';
import { parseShortcutsReply } from '../benchmarks/shortcutsbench/reply.js';
import { reportRun } from '../cli/commands/report.js';
import { appRegistry } from '../exec/index.js';
import { minimalRunSpec } from '../harness/__fixtures__/run-spec.js';
import { createQueueAuth } from '../harness/queue-auth.js';
import { openEnvelope, QueueNoteSchema } from '../harness/queue-protocol.js';
import { parseResultsText } from '../harness/results-file.js';
import { appbench, connectInMemory, fixtureDb, simulatedApps } from '../mcp/__fixtures__/fixtures.js';
import { indexRun } from '../viewer/run-index.js';
import { ApiaryError, InputInvalidError } from './errors.js';
import { jsonDepthExceededAt, MAX_JSON_DEPTH, valueDepthExceeds } from './json-depth.js';
import { parseJsonLines, parseJsonText } from './json-file.js';
import { parsePyJson } from './py-json.js';

/** JSON nested `depth` levels: `{"a":[{"a":[…]}]}` alternating, so both brackets count. */
const deep = (depth: number) => {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    open.push(i % 2 ? '[' : '{"a":');
    close.push(i % 2 ? ']' : '}');
  }
  return `${open.join('')}1${close.reverse().join('')}`;
};

function errorOf(f: () => unknown): ApiaryError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiaryError) return e;
    throw e;
  }
  throw new Error('expected an ApiaryError');
}

const HEADER = JSON.stringify({
  type: 'header',
  spec: minimalRunSpec({
    task: { name: 'appbench', version: '1', options: {} },
    solver: { name: 'plan', options: {} },
    data: { path: '/nonexistent/apiary-data', sha256: 'h' },
    size: 1,
  }),
});
const sample = (output: string) =>
  `{"type":"sample","id":"s1","epoch":1,"category":null,"output":${output},"error":null,"usage":null,` +
  '"modelCalls":1,"startedAt":"2026-01-01T00:00:00.000Z","durationMs":1,"score":null}';

const LIMIT = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;

describe('deep JSON from outside is refused with INPUT_INVALID', () => {
  it('`apiary report` on a results file with a 300,000-deep record (it crashed before)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-deep-'));
    const file = join(dir, 'results.jsonl');
    writeFileSync(file, `${HEADER}\n${sample(deep(300_000))}\n`);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let error: unknown;
    try {
      await reportRun(file, {});
    } catch (e) {
      error = e;
    } finally {
      out.mockRestore();
    }
    expect(error).toBeInstanceOf(InputInvalidError);
    const e = error as InputInvalidError;
    expect(e.code).toBe('INPUT_INVALID');
    expect(e.file).toBe(file);
    expect(e.record).toBe('line 2');
    expect(e.message).toBe(
      `${file}: record line 2: ${LIMIT} at offset ${offsetOfLimit()} (the limit for JSON input)`,
    );
  });

  it('`apiary view` indexing a results file with a deep record: INPUT_INVALID naming file and line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-deep-view-'));
    const file = join(dir, 'results.jsonl');
    writeFileSync(file, `${HEADER}\n${sample(deep(300_000))}\n`);
    const e = await indexRun(file).then(
      () => undefined,
      (error: unknown) => error as InputInvalidError,
    );
    expect(e).toBeInstanceOf(InputInvalidError);
    expect(e?.message).toBe(
      `${file}: record line 2: ${LIMIT} at offset ${offsetOfLimit()} (the limit for JSON input)`,
    );
  });

  it('queue messages from Redis nested too deep are refused before they are parsed', () => {
    const auth = createQueueAuth('a-queue-secret-of-32-characters!');
    // a correctly signed result (a worker holding the secret) whose payload is 300,000 deep
    const payload = `{"runId":"r1","text":${deep(300_000)}}`;
    const sealed = { payload, mac: auth.sign('result', payload) };
    expect(openEnvelope(auth, 'result', sealed, QueueNoteSchema)).toEqual({
      ok: false,
      why: `payload nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
    expect(openEnvelope(auth, 'result', deep(5000), QueueNoteSchema)).toEqual({
      ok: false,
      why: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
  });

  it('results files: a deep last line is refused, not dropped as a torn tail', () => {
    const e = errorOf(() => parseResultsText(`${HEADER}\n${sample(deep(2000))}\n`, 'r.jsonl'));
    expect(e.code).toBe('INPUT_INVALID');
    expect(e.message).toMatch(
      /^r\.jsonl: record line 2: JSON nested deeper than 1000 levels at offset \d+ \(the limit for JSON input\)$/,
    );
    // at the limit: read
    expect(
      parseResultsText(`${HEADER}\n${sample(deep(MAX_JSON_DEPTH - 1))}\n`, 'r.jsonl').samples,
    ).toHaveLength(1);
  });

  it('prediction files, JSON files and JSON Lines name the file and the record', () => {
    expect(errorOf(() => parseAppBenchPredictions(`${deep(1001)}\n`, 'p.jsonl')).message).toMatch(
      /^p\.jsonl: record line 1: JSON nested deeper than 1000 levels/,
    );
    expect(errorOf(() => parseJsonText(deep(300_000), 'a.json')).message).toMatch(
      /^a\.json: JSON nested deeper than 1000 levels at offset \d+/,
    );
    expect(errorOf(() => parseJsonLines(`1\n${deep(1001)}`, 'b.jsonl')).message).toMatch(
      /^b\.jsonl: record line 2: JSON nested deeper than 1000 levels/,
    );
    expect(errorOf(() => parsePyJson(deep(300_000), 'c.json')).message).toMatch(
      /^c\.json: invalid JSON at offset \d+: nested deeper than 1000 levels$/,
    );
  });

  it('the lossless parser of ShortcutsBench files refuses before recursing (stack overflow before)', () => {
    expect(() => parseJson(deep(300_000))).toThrowError(/^nested deeper than 1000 levels at offset \d+$/);
  });

  it('model replies and tool arguments nested too deep count as malformed JSON, never a crash', () => {
    const reply = deep(300_000);
    expect(parseJsonActionReply(reply)).toEqual({ kind: 'json-error', raw: reply });
    expect(parseShortcutsReply(reply).state).toBe('json_error');
    expect(parseReactArguments(reply, { name: 't', description: '', parameters: [] } as never)).toEqual({
      error: 'invalid json format',
    });
  });

  it('MCP tool arguments nested 300,000 deep: INPUT_INVALID (TOOL_FAILED "Maximum call stack size exceeded" before)', async () => {
    const db = fixtureDb();
    try {
      const client = await connectInMemory({ catalog: appbench, apps: appRegistry(simulatedApps(db)) });
      let category: unknown = 'thai';
      for (let i = 0; i < 300_000; i++) category = [category];
      const result = await client.callTool({
        name: 'Restaurants.findrestaurants',
        arguments: { category, location: 'Springfield' },
      });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toEqual({
        error: {
          code: 'INPUT_INVALID',
          message: 'invalid arguments for Restaurants.findrestaurants: nested deeper than 1000 levels',
        },
      });
    } finally {
      db.close();
    }
  });

  it('the value walk is iterative and counts arrays and objects alike', () => {
    let v: unknown = 1;
    for (let i = 0; i < 300_000; i++) v = i % 2 ? [v] : { a: v };
    expect(valueDepthExceeds(v)).toBe(true);
    expect(valueDepthExceeds(JSON.parse(deep(MAX_JSON_DEPTH)))).toBe(false);
    expect(valueDepthExceeds(JSON.parse(deep(MAX_JSON_DEPTH + 1)))).toBe(true);
    expect(valueDepthExceeds({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(valueDepthExceeds({ a: [1, { b: [] }] }, 3)).toBe(true);
  });

  it('the scan counts brackets outside strings only, escapes included', () => {
    expect(jsonDepthExceededAt(`"${'['.repeat(5000)}"`)).toBe(-1);
    expect(jsonDepthExceededAt(`["\\"${'['.repeat(5000)}"]`)).toBe(-1);
    expect(jsonDepthExceededAt(deep(MAX_JSON_DEPTH))).toBe(-1);
    expect(jsonDepthExceededAt(deep(MAX_JSON_DEPTH + 1))).toBeGreaterThan(0);
    expect(jsonDepthExceededAt('[[[', 2)).toBe(2);
  });
});

/** Offset within the record line where the 1001st bracket opens (the same for any deeper record). */
function offsetOfLimit(): number {
  return jsonDepthExceededAt(sample(deep(1001)));
}
