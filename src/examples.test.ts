import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

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
});
