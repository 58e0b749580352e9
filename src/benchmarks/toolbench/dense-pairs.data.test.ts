import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolBenchDensePairs, toolBenchParameterText, toolBenchSyntheticRequests } from './dense-pairs.js';
import { loadToolBenchSuite } from './suite.js';

const data = resolve(process.cwd(), '../shared/data');

describe('dense training pairs over the 46,802 ToolBench APIs (shared/data)', () => {
  const suite = loadToolBenchSuite(data);
  const pairs = toolBenchDensePairs(suite.docs, suite.texts, suite.toolOf, { seed: 42 });

  it('makes the same 175,423 catalog pairs for seed 42, each with its category as group', () => {
    expect(pairs).toHaveLength(175_423);
    expect(new Set(pairs.map((p) => p.group)).size).toBe(new Set(suite.docs.map((d) => d.category)).size);
    expect(toolBenchDensePairs(suite.docs, suite.texts, suite.toolOf, { seed: 42, limit: 3 })).toEqual(
      pairs.slice(0, 3),
    );
  });

  it('never uses a G1 query: every G1 file stays a held-out test', () => {
    const texts = new Set(pairs.flatMap((p) => [p.query, p.doc]));
    for (const [, set] of suite.sets) for (const q of set.queries) expect(texts.has(q.text)).toBe(false);
  });

  it('reads parameter names and descriptions from the API entry', () => {
    const d = suite.docs.find((x) => x.tool === 'TheClique' && x.api === 'Transfermarkt search');
    expect(d && toolBenchParameterText(d)).toBe('name');
  });

  it('makes 22,080 synthetic requests (57,043 pairs) for seed 42, each naming 2–4 APIs of one tool, none a G1 request', () => {
    const requests = toolBenchSyntheticRequests(suite.docs, suite.toolOf, { perTool: 4, seed: 42 });
    expect(requests).toHaveLength(22_080);
    expect(requests.reduce((n, r) => n + r.relevant.length, 0)).toBe(57_043);
    for (const r of requests) {
      expect(new Set(r.relevant.map((i) => suite.toolOf[i])).size).toBe(1);
      expect(r.relevant.length).toBeGreaterThanOrEqual(2);
      expect(r.relevant.length).toBeLessThanOrEqual(4);
    }
    const g1 = new Set([...suite.sets.values()].flatMap((set) => set.queries.map((q) => q.text)));
    expect(requests.some((r) => g1.has(r.text))).toBe(false);
  });
});
