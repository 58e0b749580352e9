import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli/__fixtures__/run-cli-in-process.js';

const root = join(import.meta.dirname, '../../..');
const fixtures = join(root, 'src/benchmarks/shortcutsbench/__fixtures__/authored');
const results = join(fixtures, 'results.jsonl');
const CHECK = 'json-gpt-3.5-turbo_check_intersection_of_query_and_para_necessary.json';

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

// Expected numbers: the hand computation in src/benchmarks/shortcutsbench/authored-metrics.test.ts.
describe('apiary score shortcuts (authored fixtures)', () => {
  it('--json prints both modes with the hand-computed numbers', async () => {
    const r = await apiary('score', 'shortcuts', '--data', fixtures, '--results', results, '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.records).toBe(12);
    expect(out.notes).toEqual([
      '4 record(s) without significant_paras: no primitive parameter counted for them',
    ]);
    expect(out.official.api.overall).toEqual({ num: 49, den: 56, accuracy: 87.5 });
    expect(out.official.primitive.overall).toEqual({ num: 9, den: 15, accuracy: 60 });
    expect(out.corrected.primitive.overall).toEqual({ num: 12, den: 15, accuracy: 80 });
    expect(out.official.previousOutput.errors).toEqual({ noPrediction: 2, formatError: 1, valueError: 1 });
    expect(out.corrected.previousOutput.overall).toEqual({ num: 3, den: 9, accuracy: 100 / 3 });
    expect(out.official.systemInput.byLevel.L4).toEqual({ num: 0, den: 0, accuracy: 'inf' });
    expect(out.corrected.systemInput.byLevel.L4).toEqual({ num: 0, den: 0, accuracy: null });
    expect(out.official.byApiListSize[3]).toEqual({
      bucket: '16-20',
      api: { num: 17, den: 21, accuracy: 1700 / 21 },
      wrong: 4,
      hallucinations: 3,
      positionRatio: 0.7,
    });
  });

  it('--mode official prints the official tables only (JSON array of records accepted too)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-sc-'));
    const lines = readFileSync(results, 'utf8').trim().split('\n');
    const asArray = join(dir, 'results.json');
    writeFileSync(asArray, `[${lines.join(',\n')}]\n`);
    const r = await apiary(
      'score',
      'shortcuts',
      '--data',
      fixtures,
      '--results',
      asArray,
      '--mode',
      'official',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ShortcutsBench (official) — 12 shortcuts');
    expect(r.stdout).not.toContain('(corrected)');
    expect(r.stdout).toMatch(
      /^API selection +87\.50 \(49\/56\) +66\.67 \(2\/3\) +92\.86 \(13\/14\) +77\.78 \(14\/18\) +95\.24 \(20\/21\)$/m,
    );
    expect(r.stdout).toMatch(
      /^previous outputs +55\.56 \(5\/9\) +— +100\.00 \(3\/3\) +33\.33 \(2\/6\) +inf$/m,
    );
    expect(r.stdout).toContain('note: 4 record(s) without significant_paras');
    rmSync(dir, { recursive: true, force: true });
  });

  it('a missing official file: the error names it and where it comes from (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-sc-'));
    cpSync(fixtures, dir, { recursive: true });
    rmSync(join(dir, CHECK));
    const r = await apiary('score', 'shortcuts', '--data', dir, '--results', results);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `[NOT_FOUND] ShortcutsBench file ${CHECK} is missing from ${dir} (it comes from the ShortcutsBench repository`,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it('a bad record: the error names the file, the record and the field (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-sc-'));
    const bad = join(dir, 'bad.jsonl');
    const [first, second] = readFileSync(results, 'utf8').split('\n');
    writeFileSync(bad, `${first}\n${second!.replace('"api_names": [', '"api_names": [3, ')}\n`);
    const r = await apiary('score', 'shortcuts', '--data', fixtures, '--results', bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `[INPUT_INVALID] ${bad}: record line 2: field "api_names": expected the candidate API ids (an array of strings)`,
    );
    const missing = join(dir, 'nope.jsonl');
    const m = await apiary('score', 'shortcuts', '--data', fixtures, '--results', missing);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain(`[NOT_FOUND] ${missing}: no such file; check the path`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('usage errors: no --data, a bad --mode (exit 2)', async () => {
    const r = await apiary('score', 'shortcuts', '--results', results);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('[USAGE] shortcuts: pass --data DIR');
    const m = await apiary(
      'score',
      'shortcuts',
      '--data',
      fixtures,
      '--results',
      results,
      '--mode',
      'strict',
    );
    expect(m.code).toBe(2);
    expect(m.stderr).toContain('--mode');
  });
});
