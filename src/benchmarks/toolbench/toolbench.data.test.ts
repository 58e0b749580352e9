import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pyGet } from '../../shared/index.js';
import { readToolBenchTools } from './corpus.js';
import { buildToolBenchRetrievalSet } from './dataset.js';
import { toolBenchDocText } from './doc-text.js';
import { readToolBenchQueries } from './queries.js';

const data = resolve(process.cwd(), '../shared/data');

describe('ToolBench retrieval data (shared/data)', () => {
  const queries = readToolBenchQueries(`${data}/toolbench/queries/G1_instruction.json`);

  it('reproduces the documented document text of query 588 "Transfermarkt search"', () => {
    const q = queries.find((x) => x.queryId === 588);
    const entry = q?.apiList.find((e) => pyGet(e, 'api_name') === 'Transfermarkt search');
    expect(entry).toBeDefined();
    expect(toolBenchDocText(entry!)).toBe(
      'Data, TheClique, Transfermarkt search, Search by name, required_params: [{"name": "name", "type": "string", "description": "", "default": "messi"}], optional_params: [], return_schema: {"Clubs": [{"link": "str", "name": "str", "slug": "str", "_list_length": 10}], "Managers & officials": [{"link": "str", "name": "str", "slug": "str", "_list_length": 5}], "Players": [{"link": "str", "name": "str", "slug": "str", "_list_length": 10}], "Referees": [{"link": "str", "name": "str", "slug": "str", "_list_length": 10}]}',
    );
  });

  it('matches the documented distribution of relevant APIs per query (G1_instruction)', () => {
    const hist: Record<number, number> = {};
    for (const q of queries) hist[q.relevant.length] = (hist[q.relevant.length] ?? 0) + 1;
    expect(queries).toHaveLength(163);
    expect(hist).toEqual({ 1: 6, 2: 124, 3: 20, 4: 10, 5: 1, 6: 2 });
  });

  it('builds the 46,802-API corpus and keeps the queries whose gold APIs are all in it', () => {
    const docs = readToolBenchTools(`${data}/toolbench/tools.jsonl`);
    expect(docs).toHaveLength(46802);
    const kept = ['G1_instruction', 'G1_category', 'G1_tool'].map((g) => {
      const qs = readToolBenchQueries(`${data}/toolbench/queries/${g}.json`);
      const set = buildToolBenchRetrievalSet(qs, docs);
      for (const q of set.queries)
        for (const d of q.relevant) expect(q.text.length > 0 && docs[d] !== undefined).toBe(true);
      return [set.queries.length, qs.length];
    });
    expect(kept).toEqual([
      [124, 163],
      [116, 153],
      [110, 158],
    ]);
  });
});
