import { describe, expect, it } from 'vitest';
import { checkOpenAiTools } from '../../catalog/index.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

const apiary = (...args: string[]) => runCliInProcess(args);

// Issue 26 item 4: `catalog export --format openai --strict`.
describe('apiary catalog export --format openai --strict', () => {
  it('writes strict-mode definitions that pass strict mode (GTA: 14; 4 failed as plain definitions)', async () => {
    const r = await apiary('catalog', 'export', '--catalog', 'gta', '--format', 'openai', '--strict');
    expect(r.code).toBe(0);
    const defs = JSON.parse(r.stdout);
    expect(defs).toHaveLength(14);
    expect(defs.every((d: { function: { strict?: boolean } }) => d.function.strict === true)).toBe(true);
    expect(checkOpenAiTools(defs, { strict: true })).toEqual([]);
    const plain = JSON.parse(
      (await apiary('catalog', 'export', '--catalog', 'gta', '--format', 'openai')).stdout,
    );
    expect(
      new Set(
        checkOpenAiTools(plain, { strict: true })
          .filter((v) => v.rule !== 'strict-flag')
          .map((v) => v.tool),
      ).size,
    ).toBe(4);
  });

  it('--strict with another format is a usage error', async () => {
    const r = await apiary('catalog', 'export', '--catalog', 'gta', '--format', 'json', '--strict');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error [USAGE] --strict must be used with --format openai (got "json")\n');
  });
});
