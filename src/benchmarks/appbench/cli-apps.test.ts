import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli/__fixtures__/run-cli-in-process.js';

const root = join(import.meta.dirname, '../../..');
const fixtures = join(root, 'src/benchmarks/appbench/apps/__fixtures__');
const dir = mkdtempSync(join(tmpdir(), 'apiary-apps-cli-'));

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('apiary apps', () => {
  it('build-db, info and call on a built file', async () => {
    const data = join(dir, 'data');
    mkdirSync(join(data, 'sgd', 'dev'), { recursive: true });
    cpSync(join(fixtures, 'sgd-dialogues-a.json'), join(data, 'sgd', 'dev', 'dialogues_001.json'));
    cpSync(join(fixtures, 'sgd-dialogues-b.json'), join(data, 'sgd', 'dev', 'dialogues_002.json'));
    const out = join(dir, 'sgd.sqlite');

    const built = await apiary('apps', 'build-db', '--data', data, '--out', out);
    expect(built.code).toBe(0);
    const lines = built.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^${out.replace(/[.]/g, '\\.')}: 2 files, 3 dialogues, 9 calls, 9 result rows → 8 distinct rows, 73 indexed values; [0-9.]+ MB in [0-9.]+ s$`,
      ),
    );
    expect(lines.slice(1)).toEqual([
      '  RentalCars_3.GetCarsAvailable\t2 calls\t2 rows',
      '  Restaurants_2.FindRestaurants\t4 calls\t3 rows',
      '  Restaurants_2.ReserveRestaurant\t2 calls\t2 rows',
      '  Weather_1.GetWeather\t1 calls\t1 rows',
    ]);

    const info = await apiary('apps', 'info', '--db', out, '--json');
    expect(JSON.parse(info.stdout)).toMatchObject({
      source: 'file',
      path: out,
      meta: { calls: '9', rows: '8' },
    });

    const called = await apiary(
      'apps',
      'call',
      'Weather',
      'getweather',
      '--db',
      out,
      '--args',
      '{"city":"springfield"}',
    );
    expect(called.code).toBe(0);
    expect(JSON.parse(called.stdout)).toEqual({
      source: 'file',
      app: 'Weather',
      api: 'getweather',
      result: [
        {
          city: 'Springfield',
          date: '2019-03-05',
          humidity: '40',
          precipitation: '10',
          temperature: '20',
          wind: '5',
        },
      ],
    });
  }, 60_000);

  it('falls back to the bundled subset and reports refusals with exit codes', async () => {
    const info = await apiary('apps', 'info', '--json');
    expect(JSON.parse(info.stdout).source).toBe('bundled');

    const denied = await apiary('apps', 'call', 'Rents', 'getride', '--caller', 'app:Hotels');
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain(
      '[PERMISSION_DENIED] Rents: call to "getride" refused: caller "app:Hotels" is not the app\'s owner "app:Rents"',
    );

    const missing = await apiary('apps', 'call', 'Rents', 'getride', '--args', '{"destination":"x"}');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      '[INPUT_INVALID] Rents.getride: missing required argument "number_of_seats"',
    );

    const noData = await apiary(
      'apps',
      'build-db',
      '--data',
      join(dir, 'nothing'),
      '--out',
      join(dir, 'x.sqlite'),
    );
    expect(noData.code).toBe(2);
    expect(noData.stderr).toContain('no SGD dialogue files under');
  }, 60_000);
});
