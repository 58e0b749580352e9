import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const main = join(root, 'src/cli/main.ts');

async function apiary(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', main, ...args], {
      cwd: root,
      env: { ...process.env, APIARY_DATA: '', NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('an empty plan is an input error (issue 13 item 9)', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'apiary-empty-plan-')), 'empty.plan.txt');
  writeFileSync(file, '// nothing but a comment\n');
  const expected = `error [INPUT_INVALID] ${file}: the plan has no steps; write at least one call (see examples/car-rental.plan.txt)\n`;

  for (const command of [['plan', 'validate'], ['plan', 'show'], ['run']])
    it(`${command.join(' ')} exits 2 with one line naming the file`, async () => {
      const r = await apiary(...command, file);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(expected);
      expect(r.stdout).toBe('');
    });
});
