import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGtaLeaderboard } from './leaderboard.js';
import { loadGtaToolMeta } from './toolmeta.js';

const DIR = resolve(import.meta.dirname, '../../../../shared/data/gta');

describe('GTA shared data', () => {
  it('toolmeta.json has the 14 tools; GoogleSearch k defaults to 10', () => {
    const meta = loadGtaToolMeta(`${DIR}/toolmeta.json`);
    expect(meta.size).toBe(14);
    expect(meta.get('GoogleSearch')!.inputs.map((i) => [i.name, i.type, i.optional, i.default])).toEqual([
      ['query', 'text', false, null],
      ['k', 'int', true, 10],
    ]);
  });
  it('leaderboard.csv parses into 16 typed rows, 11 open-source', () => {
    const file = `${DIR}/leaderboard.csv`;
    const rows = parseGtaLeaderboard(readFileSync(file, 'utf8'), file);
    expect(rows).toHaveLength(16);
    expect(rows.filter((r) => r.opensourced)).toHaveLength(11);
    expect(rows[1]).toMatchObject({
      model: 'gpt-4o',
      instAcc: 86.42,
      toolAcc: 70.38,
      argAcc: 35.19,
      summAcc: 72.77,
    });
  });
});
