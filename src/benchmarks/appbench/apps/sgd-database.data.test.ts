import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../catalog/index.js';
import { registerBuiltinPlugins } from '../../builtin.js';
import { appBenchSgdSource } from '../catalog.js';
import { buildSgdDatabaseFile, type SgdDatabaseFileReport } from './build-sgd-database-file.js';
import { normalizeSlotValue } from './normalize-slot-value.js';
import { countSideEffects, createSgdApps } from './sgd-apps.js';
import { openSgdDatabase, type SgdDatabaseHandle } from './sgd-database.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

// Builds the full database from the SGD dev/test dialogues in ../shared/data (41 files).
const data = resolve(process.cwd(), '../shared/data');
const dir = mkdtempSync(join(tmpdir(), 'apiary-sgd-full-'));
let report: SgdDatabaseFileReport;
let handle: SgdDatabaseHandle;

beforeAll(async () => {
  report = await buildSgdDatabaseFile(data, join(dir, 'sgd.sqlite'));
  handle = openSgdDatabase(report.out);
});
afterAll(() => {
  handle?.db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('full SGD database', () => {
  it('holds every service call and the distinct result rows', () => {
    const c = report.counts;
    // Counted independently (a Python pass over the same files): 41 files, 5,019 dialogues,
    // 13,685 service calls returning 54,036 rows, of which 26,992 are distinct per (service, intent).
    expect(c).toMatchObject({ files: 41, dialogues: 5019, calls: 13685, resultRows: 54036, rows: 26992 });
    const perService = new Map<string, { calls: number; rows: number }>();
    for (const i of report.intents) {
      const s = perService.get(i.service) ?? { calls: 0, rows: 0 };
      s.calls += i.calls;
      s.rows += i.rows;
      perService.set(i.service, s);
    }
    console.log(
      `full SGD database: ${c.files} files, ${c.dialogues} dialogues, ${c.calls} calls, ${c.resultRows} result rows → ${c.rows} distinct rows, ${c.rowValues} indexed values; ${(report.bytes / 1024 / 1024).toFixed(1)} MB built in ${(report.ms / 1000).toFixed(2)} s`,
    );
    console.log([...perService].map(([s, n]) => `  ${s}: ${n.calls} calls, ${n.rows} rows`).join('\n'));
    expect(report.intents.find((i) => i.service === 'Hotels_2' && i.intent === 'SearchHouse')).toEqual({
      service: 'Hotels_2',
      intent: 'SearchHouse',
      calls: 353,
      rows: 1609,
    });
    expect(handle.source).toBe('file');
  });

  it('replays the recorded AppBench search calls: the recorded rows are among the results', async () => {
    const catalog = loadCatalog('appbench');
    const handlers = createSgdApps({ db: handle.db, catalog });
    const apiOf = new Map<string, { app: string; api: string }>();
    for (const api of catalog.apis) {
      const src = appBenchSgdSource(api.app, api.name)!;
      apiOf.set(`${src.service}.${src.intent}`, { app: api.app, api: api.name });
    }
    const calls = handle.db
      .prepare('SELECT id, service, intent, params_json FROM calls WHERE result_count > 0 ORDER BY id')
      .all() as Array<{ id: number; service: string; intent: string; params_json: string }>;
    const rowsOf = handle.db.prepare(
      'SELECT r.row_json FROM call_results cr JOIN rows r ON r.id = cr.row_id WHERE cr.call_id = ? ORDER BY cr.rank',
    );
    let replayed = 0;
    let exact = 0;
    let inconsistent = 0;
    let ms = 0;
    for (const c of calls) {
      const target = apiOf.get(`${c.service}.${c.intent}`);
      if (!target) continue;
      const h = handlers.find((x) => x.appId === target.app)!;
      if (h.binding(target.api)!.transactional) continue;
      const params = JSON.parse(c.params_json) as Record<string, string>;
      const recorded = (rowsOf.all(c.id) as Array<{ row_json: string }>).map((r) => r.row_json);
      if (
        !recorded.every((json) => {
          const row = JSON.parse(json) as Record<string, string>;
          return Object.entries(params).every(
            ([k, v]) => normalizeSlotValue(row[k]) === normalizeSlotValue(v),
          );
        })
      ) {
        inconsistent++;
        continue;
      }
      const t0 = performance.now();
      const got = (await h.call(target.api, params, { caller: h.owner })) as unknown[];
      ms += performance.now() - t0;
      const gotJson = new Set(got.map((r) => JSON.stringify(r)));
      for (const json of recorded) expect(gotJson.has(json)).toBe(true);
      replayed++;
      if (got.length === new Set(recorded).size) exact++;
    }
    console.log(
      `replayed ${replayed} AppBench search calls (${inconsistent} skipped: SGD answered another value than asked); ${exact} returned exactly the recorded rows; ${(ms / replayed).toFixed(3)} ms per call`,
    );
    expect(replayed).toBeGreaterThan(3000);
    expect(countSideEffects(handle.db)).toBe(0);
  });
});
