import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli/__fixtures__/run-cli-in-process.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const FIXTURES = join(ROOT, 'src/benchmarks/shortcutsbench/__fixtures__');
const MINE = join(FIXTURES, 'my-shortcuts');
const WEATHER = join(MINE, 'weather.shortcut');
/** The authored fixture folder holds all_api2info.json and all_api2paraname2paratype.json subsets. */
const APIS = join(FIXTURES, 'authored');

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

describe('apiary shortcuts', { timeout: 60_000 }, () => {
  it('show prints the listing; --json gives the level and the value forms', async () => {
    const r = await apiary('shortcuts', 'show', WEATHER);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      'weather (xml-plist): 13 actions, length 8 (longest branch), level L3',
    );
    expect(r.stdout).toContain('        WFURL = @2 "URL"  (previous-output)\n');
    const j = await apiary('shortcuts', 'show', WEATHER, '--json');
    const out = JSON.parse(j.stdout);
    expect([out.format, out.length, out.level, out.actions.length]).toEqual(['xml-plist', 8, 3, 13]);
    expect(out.actions[12].params).toEqual([{ name: 'WFInput', form: 'system-input', text: '$CurrentDate' }]);
  });

  it('to-plan prints plan lines and what does not map', async () => {
    const r = await apiary('shortcuts', 'to-plan', WEATHER);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      "is.workflow.actions: [Contents_of_URL = is.workflow.actions.downloadurl(#WFHTTPMethod='GET', #WFURL=URL)]\n",
    );
    expect(r.stdout).toContain('\nnot mapped (8):\n');
    expect(r.stdout).toContain(
      '  action 6 is.workflow.actions.notification: inside an If, Menu or Repeat block (a plan has no control flow)\n',
    );
  });

  it('to-plan lists the implicit inputs; malformed XML is one coded error with nothing raw on stderr', async () => {
    const shapes = join(FIXTURES, 'real-shapes');
    const r = await apiary('shortcuts', 'to-plan', join(shapes, 'implicit-input.plist'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '\nimplicit input (4):\n  action 1 is.workflow.actions.math parameter WFInput: the output of action 0 (not set in the file; Shortcuts passes it on)\n',
    );
    // the plan lines are a plan file that validates against the shortcuts catalog
    const planFile = join(mkdtempSync(join(tmpdir(), 'apiary-plan-')), 'c2f.plan.txt');
    writeFileSync(planFile, `${r.stdout.split('\n\n')[0]}\n`);
    const v = await apiary('plan', 'validate', planFile, '--catalog', 'shortcuts');
    expect([v.code, v.stdout]).toEqual([0, `${planFile}: valid (5 steps)\n`]);
    const bad = join(shapes, 'malformed.plist');
    const m = await apiary('shortcuts', 'to-plan', bad);
    expect(m.code).toBe(2);
    expect(m.stderr).toBe(
      `error [INPUT_INVALID] ${bad}: not a readable xml-plist: line 7: </string> where </key> was expected\n`,
    );
  });

  it('refuses a signed shortcut with exit 2 and says how to export it unsigned', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'apiary-signed-')), 'signed.shortcut');
    writeFileSync(file, Buffer.concat([Buffer.from('AEA1'), Buffer.alloc(32)]));
    const r = await apiary('shortcuts', 'show', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error [INPUT_INVALID] ${file}: cannot import: it is a signed shortcut`);
    expect(r.stderr).not.toContain('    at ');
  });

  it('a folder is an eval dataset; its official result records score the same on the written data folder', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'apiary-folder-'));
    const a = await apiary('eval', 'shortcuts', '--data', APIS, '--shortcuts', MINE, '--out', join(tmp, 'a'));
    expect(a.code).toBe(0);
    const sa = JSON.parse(readFileSync(join(tmp, 'a', 'summary.json'), 'utf8'));
    // evaluated actions: weather 2, 3, 6, 8, 10, 11, 12 and battery 0, 1
    expect([sa.records, sa.report.official.api.overall.den]).toEqual([2, 9]);
    const d = await apiary('shortcuts', 'dataset', MINE, '--data', APIS, '--out', join(tmp, 'data'));
    expect(d.stdout).toBe(
      `2 shortcuts written to ${join(tmp, 'data')} (a --data folder for eval and score)\n`,
    );
    const lines = await apiary('shortcuts', 'results', join(tmp, 'a'));
    expect(
      lines.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).URL),
    ).toEqual(['battery.plist', 'weather.shortcut']);
    writeFileSync(join(tmp, 'official.jsonl'), lines.stdout);
    const scored = await apiary(
      'score',
      'shortcuts',
      '--data',
      join(tmp, 'data'),
      '--results',
      join(tmp, 'official.jsonl'),
      '--json',
    );
    const report = JSON.parse(scored.stdout);
    expect(report.official).toEqual(sa.report.official);
    expect(report.corrected).toEqual(sa.report.corrected);
  });

  it('names the missing query sidecar', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-nosidecar-'));
    writeFileSync(join(dir, 'w.shortcut'), readFileSync(WEATHER));
    const r = await apiary('eval', 'shortcuts', '--data', APIS, '--shortcuts', dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error [INPUT_INVALID] ${join(dir, 'w.query.txt')}: missing: the query for w.shortcut`,
    );
  });
});
