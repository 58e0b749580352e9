import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from './test/index.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');

describe('examples stay runnable', () => {
  it('examples/library-tour.ts (the README library tour) plans, validates and executes', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/library-tour.ts'], {
      cwd: root,
      env: { ...process.env, XDG_DATA_HOME: join(root, '.apiary', 'no-such-data-home') },
    });
    const lines = stdout.trim().split('\n');
    expect(lines.slice(3)).toEqual([
      'issues: 0',
      'parallel scale 2, sequential scale 2',
      'database: bundled; run succeeded',
      's1 Rents.getcarsavailable: succeeded',
      's2 Rents.reservecar: succeeded',
      's3 Weather.getweather: succeeded',
    ]);
  });

  let server: ScriptedOpenAiServer | undefined;
  afterEach(async () => server?.close());

  it('examples/agent.ts (the README agent example, ≤ 20 lines) runs an agent over the AppBench apps', async () => {
    const body = readFileSync(join(root, 'examples/agent.ts'), 'utf8').trimEnd().split('\n');
    expect(body.filter((l) => l.trim() && !l.startsWith('//')).length).toBeLessThanOrEqual(20);
    let turn = 0;
    server = await startScriptedOpenAiServer({
      respond: () =>
        [
          {
            toolCalls: [
              {
                name: 'Restaurants_findrestaurants',
                arguments: { category: 'American', location: 'San Francisco' },
              },
            ],
          },
          {
            toolCalls: [
              {
                name: 'Restaurants_reserverestaurant',
                arguments: {
                  restaurant_name: 'Acquerello',
                  location: 'San Francisco',
                  time: '19:00',
                  number_of_seats: '2',
                },
              },
            ],
          },
          'Booked Acquerello for 2 at 19:00.',
        ][turn++]!,
    });
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/agent.ts'], {
      cwd: root,
      env: {
        ...process.env,
        APIARY_BASE_URL: server.url,
        APIARY_MODEL: 'scripted',
        XDG_DATA_HOME: join(root, '.apiary', 'no-such-data-home'),
      },
    });
    expect(stdout.trim().split('\n')).toEqual([
      'final Booked Acquerello for 2 at 19:00.',
      'Restaurants.findrestaurants ok',
      'Restaurants.reserverestaurant ok',
    ]);
  });
});
