import { describe, expect, it } from 'vitest';
import { composedTestRequests, composeMultiToolRequests } from './compose-requests.js';
import type { RetrievalQuery } from './types.js';

// documents 0–1 belong to tool 0, 2 to tool 1, 3 to tool 2
const groupOf = Uint32Array.from([0, 0, 1, 2]);
const q = (id: string, text: string, relevant: number[]): RetrievalQuery => ({ id, text, relevant });

describe('composeMultiToolRequests', () => {
  it('joins each query with one of another tool: texts by a space, relevant documents united', () => {
    const a = q('a', 'Get the weather.', [0, 1]);
    const b = q('b', 'Find a taxi.', [2]);
    const c = q('c', 'Weather again.', [1]);
    const out = composeMultiToolRequests([a, b, c], groupOf);
    // a and c (tool 0) can only take b; b takes a or c
    expect(out).toHaveLength(3);
    expect(out[0]).toEqual({ id: 'a+b', text: 'Get the weather. Find a taxi.', relevant: [0, 1, 2] });
    expect(['b+a', 'b+c']).toContain(out[1]?.id);
    expect(out[1]?.relevant).toEqual(out[1]?.id === 'b+a' ? [2, 0, 1] : [2, 1]);
    expect(out[2]).toEqual({ id: 'c+b', text: 'Weather again. Find a taxi.', relevant: [1, 2] });
  });

  it('is deterministic for a seed and draws three tools for parts 3', () => {
    const qs = [q('a', 'A.', [0]), q('b', 'B.', [2]), q('c', 'C.', [3]), q('d', 'D.', [1])];
    const out = composeMultiToolRequests(qs, groupOf, { parts: 3, seed: 5 });
    expect(out).toEqual(composeMultiToolRequests(qs, groupOf, { parts: 3, seed: 5 }));
    expect(out).toHaveLength(4);
    for (const r of out) {
      const tools = r.relevant.map((d) => groupOf[d]);
      expect(new Set(tools).size).toBe(3);
      expect(r.id.split('+')).toHaveLength(3);
      expect(r.text.split(' ')).toHaveLength(3);
    }
    // c (tool 2) needs a tool-0 query and b: {a or d} and b in some order
    const c = out.find((r) => r.id.startsWith('c+'));
    expect(c?.relevant.map((d) => groupOf[d]).sort()).toEqual([0, 1, 2]);
  });

  it('skips a query with no partner of another tool, and queries without relevant documents', () => {
    const qs = [q('a', 'A.', [0]), q('d', 'D.', [1]), q('e', 'E.', [])];
    expect(composeMultiToolRequests(qs, groupOf)).toEqual([]);
    // a query of two tools takes a partner of neither of them
    expect(composeMultiToolRequests([q('ab', 'AB.', [0, 2]), q('b', 'B.', [2])], groupOf)).toEqual([]);
    expect(composeMultiToolRequests([q('ab', 'AB.', [0, 2]), q('c', 'C.', [3])], groupOf)).toEqual([
      { id: 'ab+c', text: 'AB. C.', relevant: [0, 2, 3] },
      { id: 'c+ab', text: 'C. AB.', relevant: [3, 0, 2] },
    ]);
  });

  it('familyOf: partners only from the family (category) of the first relevant document', () => {
    // tools 0 and 1 are of family 0, tool 2 of family 1
    const familyOf = Uint32Array.from([0, 0, 0, 1]);
    const qs = [q('a', 'A.', [0]), q('b', 'B.', [2]), q('c', 'C.', [3])];
    expect(composeMultiToolRequests(qs, groupOf, { familyOf })).toEqual([
      { id: 'a+b', text: 'A. B.', relevant: [0, 2] },
      { id: 'b+a', text: 'B. A.', relevant: [2, 0] },
    ]);
    // without the family c could pair with a or b
    expect(composeMultiToolRequests(qs, groupOf).map((r) => r.id)).toHaveLength(3);
  });

  it('composedTestRequests: rounds of compositions with seeds 100 + 10·parts + round', () => {
    const qs = [q('a', 'A.', [0]), q('b', 'B.', [2]), q('c', 'C.', [3]), q('d', 'D.', [1])];
    const set = composedTestRequests(qs, groupOf, 2, 3);
    expect(set).toEqual([
      ...composeMultiToolRequests(qs, groupOf, { parts: 2, seed: 120 }),
      ...composeMultiToolRequests(qs, groupOf, { parts: 2, seed: 121 }),
      ...composeMultiToolRequests(qs, groupOf, { parts: 2, seed: 122 }),
    ]);
    expect(set).toHaveLength(12);
    expect(composedTestRequests(qs, groupOf, 3)).toHaveLength(20);
  });
});
