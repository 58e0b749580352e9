import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../../cli/__fixtures__/run-cli-in-process.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../../test/index.js';
import { createSgdApps } from '../apps/sgd-apps.js';
import { buildSgdDatabase, findSgdDialogueFiles, readSgdDialogueFiles } from '../apps/sgd-database.js';
import { appBenchCatalogSource } from '../catalog.js';
import { checkAppBenchGold, type GoldRecord } from '../gold-check.js';
import { APPBENCH_CATEGORIES, readAppBenchFile } from '../record.js';
import { compareWithRelease, type ReleaseRecord } from './compare-release.js';
import { QUALITY_PROMPT } from './instructions.js';
import { readSgdDialogues } from './sgd-source.js';

/* Issue 29: the builder on the real SGD dialogues (../shared/data/sgd), and how close it comes to the release. */

const data = resolve(process.cwd(), '../shared/data');
const catalog = appBenchCatalogSource.load({});
let tmp: string;
let server: ScriptedOpenAiServer;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'apiary-build-data-'));
  server = await startScriptedOpenAiServer({
    respond: (req) =>
      req.messages[0]?.content === QUALITY_PROMPT ? '8' : 'Please do what I asked in the dialogue.',
  });
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('data build appbench on the SGD release', () => {
  it('25 records per category with a scripted model; every plan completes on the SGD apps, no dangling reference', async () => {
    const out = join(tmp, 'built');
    const r = await runCliInProcess([
      'data',
      'build',
      'appbench',
      '--sgd',
      join(data, 'sgd'),
      '--out',
      out,
      '--limit',
      '25',
      '--base-url',
      server.url,
      '--model',
      'scripted',
    ]);
    expect(r.code).toBe(0);
    const records: GoldRecord[] = APPBENCH_CATEGORIES.flatMap((category) =>
      readAppBenchFile(join(out, `test_${category}.json`)).map((record, i) => ({
        id: `test_${category}#${i}`,
        category,
        record,
      })),
    );
    expect(APPBENCH_CATEGORIES.map((c) => records.filter((x) => x.category === c).length)).toEqual([
      25, 25, 25, 25,
    ]);
    const db = new Database(':memory:');
    buildSgdDatabase(readSgdDialogueFiles(findSgdDialogueFiles(data)), db);
    const report = await checkAppBenchGold(records, { catalog, handlers: createSgdApps({ db, catalog }) });
    db.close();
    expect([report.total, report.completed]).toEqual([100, 100]);
    expect(report.counts).toMatchObject({ rejected: 0, 'no-row': 0, failed: 0, 'dangling-ref': 0 });

    const sft = await runCliInProcess([
      'sft',
      'build',
      '--source',
      'appbench',
      '--data',
      out,
      '--out',
      join(tmp, 'sft.jsonl'),
    ]);
    expect(sft.code).toBe(0);
    expect(sft.stdout).toContain('from 100 tasks');
  });

  it("item 2: the builder's plans for the 200 dev records' dialogues against the gold plans", () => {
    const records: ReleaseRecord[] = APPBENCH_CATEGORIES.flatMap((category) =>
      readAppBenchFile(join(data, 'appbench', `dev_${category}.json`)).map((record, i) => ({
        id: `dev_${category}#${i}`,
        category,
        record,
      })),
    );
    const dialogues = readSgdDialogues(join(data, 'sgd'));
    const figure = (refs: 'value' | 'name') => {
      const rows = compareWithRelease(records, dialogues, catalog, { refs, repeats: 'all' });
      const sourced = rows.filter((x) => !x.differences.includes('source not found'));
      const scaled = sourced.filter((x) => x.scale);
      const sameScale = scaled.filter((x) => x.scale!.gold.join() === x.scale!.built.join());
      return [sourced.length, sourced.filter((x) => x.success).length, scaled.length, sameScale.length];
    };
    // 23 MM records come from dialogue files missing from the local copy; 3 give no path
    expect(figure('value')).toEqual([177, 130, 174, 157]);
    expect(figure('name')).toEqual([177, 170, 174, 171]);
  });
});
