import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { solverTool } from '../../benchmarks/gta/tools/solver.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

const root = join(import.meta.dirname, '../../..');
const image = join(root, 'src/benchmarks/gta/__fixtures__/data/image/image_2.png');
const dir = mkdtempSync(join(tmpdir(), 'apiary-tools-cli-'));
// Solver and Plot are ready where bubblewrap and Debian's python3-sympy/matplotlib are (CI)
const pythonReady = solverTool().unavailable?.() === undefined;

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The first command loads the tools' stack (seconds on a loaded machine), hence the longer time limits.
describe('apiary tools', () => {
  it('list: the 14 tools with category and status', async () => {
    const { code, stdout } = await apiary('tools', 'list', '--json');
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as Array<{ name: string; category: string; status: string }>;
    expect(rows).toHaveLength(14);
    expect(rows[0]).toEqual({ name: 'OCR', category: 'perception', status: 'ready' });
    expect(rows.find((r) => r.name === 'Calculator')).toEqual({
      name: 'Calculator',
      category: 'logic',
      status: 'ready',
    });
    expect(rows.filter((r) => r.status === 'ready').map((r) => r.name)).toEqual([
      'OCR',
      'DrawBox',
      'AddText',
      'Calculator',
      ...(pythonReady ? ['Solver', 'Plot'] : []),
    ]);
  });

  it('--out-dir in a read-only folder is a USAGE error before the tool runs (exit 2)', async () => {
    const r = await apiary(
      'tools',
      'call',
      'Plot',
      '--arg',
      'command=print(1)',
      '--out-dir',
      '/proc/apiary-plots',
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error [USAGE] --out-dir must be a path in a writable folder (/proc is not) (got "/proc/apiary-plots")\n',
    );
  });

  it('call: prints a text result; a refused expression is a tool error (exit 3)', async () => {
    const ok = await apiary('tools', 'call', 'Calculator', '--arg', 'expression=3.5*60');
    expect(ok).toMatchObject({ code: 0, stdout: '210.0\n' });
    const refused = await apiary('tools', 'call', 'Calculator', '--arg', `expression=__import__('os')`);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      "error [TOOL_FAILED] Calculator: NameError: name '__import__' is not defined",
    );
  }, 60_000);

  it('call --record then --replay: the same image without running the tool; a miss is its own count', async () => {
    const rec = join(dir, 'rec');
    const args = ['--arg', `image=${image}`, '--arg', 'bbox=(3, 4, 12, 8)', '--arg', 'annotation=STOP'];
    const recorded = await apiary(
      'tools',
      'call',
      'DrawBox',
      ...args,
      '--out-dir',
      join(dir, 'a'),
      '--record',
      rec,
    );
    expect(recorded.code).toBe(0);
    const drawn = recorded.stdout.trim();
    expect(drawn).toMatch(new RegExp(`^${join(dir, 'a')}/drawbox-[0-9a-f]{16}\\.png$`));
    expect(recorded.stderr).toContain(`recording ${rec}: 0 hits, 0 misses, 1 run, 1 recorded`);

    const replayed = await apiary(
      'tools',
      'call',
      'DrawBox',
      ...args,
      '--out-dir',
      join(dir, 'b'),
      '--replay',
      rec,
      '--json',
    );
    expect(replayed.code).toBe(0);
    const out = JSON.parse(replayed.stdout);
    const path = join(dir, 'b', drawn.slice(join(dir, 'a').length + 1));
    expect(out.content).toEqual([{ type: 'image', path, mediaType: 'image/png' }]);
    expect(out.recording).toEqual({ dir: rec, mode: 'replay', hits: 1, misses: 0, runs: 0, recorded: 0 });
    expect(readFileSync(path).equals(readFileSync(drawn))).toBe(true);

    const miss = await apiary('tools', 'call', 'Calculator', '--arg', 'expression=1+1', '--replay', rec);
    expect(miss.code).toBe(3);
    expect(miss.stderr).toContain(`recording ${rec}: 0 hits, 1 miss, 0 runs, 0 recorded`);
    expect(miss.stderr).toContain('error [TOOL_FAILED] replay miss: Calculator {"expression":"1+1"}');
  }, 60_000);

  it('usage errors: unknown tool, argument or value, two recording modes', async () => {
    const unknown = await apiary('tools', 'call', 'Calculater');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('error [NOT_FOUND] unknown GTA tool "Calculater"');
    const badKey = await apiary('tools', 'call', 'Calculator', '--arg', 'x=1');
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('error [USAGE] --arg must be one of expression for Calculator (got "x")');
    const modes = await apiary(
      'tools',
      'call',
      'Calculator',
      '--arg',
      'expression=1',
      '--record',
      dir,
      '--replay',
      dir,
    );
    expect(modes.code).toBe(2);
    expect(modes.stderr).toContain(
      'error [USAGE] choose one of --record, --replay and --record-missing (got 2)',
    );
  }, 60_000);
});
