import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from './__fixtures__/run-cli-in-process.js';

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

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

describe('a plan file that is not UTF-8 is an input error naming the file and the line (issue 27 A15)', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'apiary-latin1-plan-')), 'zurich.plan.txt');
  // "Zürich" saved as Latin-1: read as UTF-8 it became "Z\ufffdrich" and ran
  writeFileSync(
    file,
    Buffer.from("Weather: [temperature = getweather(#city='Z\u00fcrich', #date='2019-03-01')]\n", 'latin1'),
  );
  const expected = `error [INPUT_INVALID] ${file}: record line 1: not UTF-8 text (byte 0xfc at byte 43); save the file as UTF-8\n`;

  for (const command of [['plan', 'validate'], ['plan', 'show'], ['run']])
    it(`${command.join(' ')} exits 2 with one line`, async () => {
      const r = await apiary(...command, file);
      expect([r.code, r.stdout, r.stderr]).toEqual([2, '', expected]);
    });
});
