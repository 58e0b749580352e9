import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiaryError, ERROR_CODES } from '../shared/index.js';
import { runCliInProcess } from './__fixtures__/run-cli-in-process.js';
import { EXIT_STATUS_OF_CODE, reportError } from './output.js';

/* Issue 13 item 5: one error format everywhere, usage and input errors exit 2, a catalogue of codes. */

const ROOT = join(import.meta.dirname, '../..');

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

/** The rows of the codes table in docs/errors.md: code → exit status. */
function catalogue(): Map<string, number> {
  const rows = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8').matchAll(/^\| `([A-Z_]+)` \| (\d) \|/gm);
  return new Map([...rows].map((m) => [m[1]!, Number(m[2])]));
}

describe('docs/errors.md', () => {
  it('lists exactly the codes of ErrorCode, each with the exit status the CLI uses', () => {
    const docs = catalogue();
    expect([...docs.keys()].sort()).toEqual([...ERROR_CODES].sort());
    expect(Object.fromEntries(docs)).toEqual(EXIT_STATUS_OF_CODE);
  });
});

describe('reportError: everything in one format', () => {
  let written = '';
  afterEach(() => {
    vi.restoreAllMocks();
    written = '';
  });
  const capture = () =>
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written += String(chunk);
      return true;
    });

  it('a Node file error with a path becomes the typed error for that path, exit 2', () => {
    capture();
    const e = Object.assign(new Error('EACCES: permission denied, open'), {
      code: 'EACCES',
      path: '/x/y.json',
    });
    expect(reportError(e, false)).toBe(2);
    expect(written.replace(/\x1b\[\d+m/g, '')).toBe(
      'error [INPUT_INVALID] /x/y.json: permission denied; check its permissions or pass another path\n',
    );
  });

  it('anything else is INTERNAL with a code, exit 3, no stack without --debug', () => {
    capture();
    expect(reportError(new TypeError('x is not a function'), false)).toBe(3);
    expect(written.replace(/\x1b\[\d+m/g, '')).toBe(
      'error [INTERNAL] x is not a function (unexpected: rerun with --debug and report the stack)\n',
    );
  });

  it('an ApiaryError keeps its code and exit status', () => {
    capture();
    expect(reportError(new ApiaryError('PLAN_INVALID', 'p.txt: 2 problems'), false)).toBe(1);
    expect(reportError(new ApiaryError('MODEL_CALL_FAILED', 'gave up'), false)).toBe(3);
    expect(written.replace(/\x1b\[\d+m/g, '')).toBe(
      'error [PLAN_INVALID] p.txt: 2 problems\nerror [MODEL_CALL_FAILED] gave up\n',
    );
  });
});

describe('CLI error paths', { timeout: 60_000 }, () => {
  it('inputs: a folder for a file, a malformed JSONL line, an unknown catalog, a missing model file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-errors-'));
    const bad = join(dir, 'preds.jsonl');
    writeFileSync(bad, '\n{"id":\n');
    const missingModel = join(dir, 'none.aprm');
    const [folder, predsFolder, jsonl, catalog, model] = await Promise.all([
      apiary('plan', 'validate', dir),
      apiary('score', 'appbench', '--predictions', dir, '--data', 'examples/appbench-mini'),
      apiary('score', 'appbench', '--predictions', bad, '--data', 'examples/appbench-mini'),
      apiary('catalog', 'list', '--catalog', 'appbnch'),
      apiary(
        'retrieve',
        'query',
        'hi',
        '--retriever',
        'trained',
        '--model',
        missingModel,
        '--catalog',
        'appbench',
      ),
    ]);
    expect([folder.code, folder.stderr]).toEqual([
      2,
      `error [INPUT_INVALID] ${dir}: is a folder, not a file; pass the file inside it\n`,
    ]);
    expect([predsFolder.code, predsFolder.stderr]).toEqual([
      2,
      `error [INPUT_INVALID] ${dir}: is a folder, not a file; pass the file inside it\n`,
    ]);
    expect(jsonl.code).toBe(2);
    expect(jsonl.stderr).toMatch(
      new RegExp(`^error \\[INPUT_INVALID\\] ${bad}: record line 2: not valid JSON \\(.+\\)\\n$`),
    );
    expect([catalog.code, catalog.stderr]).toEqual([
      2,
      'error [NOT_FOUND] unknown catalog "appbnch" (available: appbench, sgd, gta, shortcuts, toolbench, or a catalog JSON file)\n',
    ]);
    expect([model.code, model.stderr]).toEqual([
      2,
      `error [USAGE] --model must be an existing file (got "${missingModel}")\n`,
    ]);
  });

  it("commander's usage errors: the error line and one hint (suggestion, the command's help), never the whole help", async () => {
    const cases: Array<[string[], string, string]> = [
      [
        ['eval', 'appbench', '--limt', '3'],
        "error [USAGE] unknown option '--limt'",
        'hint: did you mean --limit? see `apiary eval --help`',
      ],
      [['evl'], "error [USAGE] unknown command 'evl'", 'hint: did you mean eval? see `apiary --help`'],
      [['run'], "error [USAGE] missing required argument 'plan'", 'hint: see `apiary run --help`'],
      [
        ['apps', 'chek'],
        "error [USAGE] unknown command 'chek'",
        'hint: did you mean check? see `apiary apps --help`',
      ],
      [
        ['eval', 'appbench', '--limit'],
        "error [USAGE] option '--limit <n>' argument missing",
        'hint: see `apiary eval --help`',
      ],
    ];
    for (const [args, line, hint] of cases) {
      const r = await apiary(...args);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `${line}\n${hint}\n`]);
    }
  });

  it('usage: an unknown flag, task, solver or option; an output folder that cannot be written', async () => {
    const aFile = join(mkdtempSync(join(tmpdir(), 'apiary-errors-')), 'notes.txt');
    writeFileSync(aFile, 'x');
    const [flag, task, solver, option, readOnly, outFile] = await Promise.all([
      apiary('eval', 'appbench', '--limt', '3'),
      apiary('eval', 'appbnch'),
      apiary('eval', 'appbench', '--solver', 'greedy'),
      apiary('eval', 'appbench', '--option', 'shots=2', '--limit', '1'),
      // /proc accepts no new files, even for root (a chmod 555 folder would not stop root)
      apiary(
        'sft',
        'build',
        '--source',
        'appbench',
        '--data',
        'examples/appbench-mini',
        '--out',
        '/proc/apiary/sft.jsonl',
      ),
      apiary('eval', 'appbench', '--out', aFile),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr.split('\n')[0]).toBe("error [USAGE] unknown option '--limt'");
    expect([task.code, task.stderr]).toEqual([
      2,
      'error [NOT_FOUND] unknown task "appbnch" (known: appbench, gta, shortcuts, toolbench-retrieval)\n',
    ]);
    expect([solver.code, solver.stderr]).toEqual([
      2,
      'error [NOT_FOUND] task "appbench" has no solver "greedy" (solvers: flat, hierarchical, baseline, tool-loop)\n',
    ]);
    expect(option.code).toBe(2);
    expect(option.stderr.split('\n').at(-2)).toBe(
      'error [USAGE] unknown option "shots" for appbench with solver baseline (task options: categories; solver options: none)',
    );
    expect([readOnly.code, readOnly.stderr]).toEqual([
      2,
      'error [USAGE] --out must be a path in a writable folder (/proc is not) (got "/proc/apiary/sft.jsonl")\n',
    ]);
    // a file where the run folder goes: refused before the run (was INTERNAL EEXIST, exit 3, after loading)
    expect(outFile.code).toBe(2);
    expect(outFile.stderr.split('\n').at(-2)).toBe(
      `error [USAGE] --out must be a folder path, not a file (got "${aFile}")`,
    );
  });
});
