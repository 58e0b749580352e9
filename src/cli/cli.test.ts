import { describe, expect, it } from 'vitest';
import { runCliInProcess } from './__fixtures__/run-cli-in-process.js';

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

describe('apiary CLI: catalog and plan', () => {
  it('catalog list --json', async () => {
    const r = await apiary('catalog', 'list', '--catalog', 'appbench', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.apps).toBe(15);
    expect(out.apis).toHaveLength(33);
  });

  it('catalog export --format openai for one app', async () => {
    const r = await apiary(
      'catalog',
      'export',
      '--catalog',
      'appbench',
      '--app',
      'Weather',
      '--format',
      'openai',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((t: { function: { name: string } }) => t.function.name)).toEqual([
      'Weather_getweather',
    ]);
  });

  it('plan validate reports each problem and exits 1', async () => {
    const r = await apiary('plan', 'validate', 'src/cli/__fixtures__/bad-plan.txt');
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual([
      'src/cli/__fixtures__/bad-plan.txt: s1.api: api-not-owned: app "Rents" does not own "findbus" (owned by Buses)',
      "src/cli/__fixtures__/bad-plan.txt: s2.car_type: enum-value: value \"Truck\" is not one of 'Hatchback', 'Sedan', 'SUV', 'Compact', 'Standard', 'Full-size'",
      'src/cli/__fixtures__/bad-plan.txt: s3.city: dangling-ref: no earlier step returns "nowhere"',
    ]);
  });

  it('plan validate on the example plan exits 0; show draws levels', async () => {
    expect((await apiary('plan', 'validate', 'examples/car-rental.plan.txt')).code).toBe(0);
    const show = await apiary('plan', 'show', 'examples/car-rental.plan.txt');
    expect(show.stdout.split('\n')[0]).toBe('3 steps · 2 parallel component(s) · sequential depth 2');
  });

  it('errors are one line with a code and exit 2; --help exits 0', async () => {
    const missing = await apiary('plan', 'validate', 'no-such-file.txt');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error [NOT_FOUND] no-such-file.txt: no such file; check the path\n');
    expect(missing.stderr).not.toMatch(/\n\s+at /); // no stack trace without --debug
    const help = await apiary('catalog', 'export', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--format <format>');
  });
});
