import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePyJson } from '../../shared/index.js';
import { NO_ENTRY, parseToolBenchTools, readToolBenchTools, toolBenchLexicalText } from './corpus.js';
import { buildToolBenchRetrievalSet } from './dataset.js';
import { toolBenchDocText } from './doc-text.js';
import { parseToolBenchQueries } from './queries.js';

const fx = (name: string) => join(import.meta.dirname, '__fixtures__', name);

describe('toolBenchDocText (docs/retrieval.md, "ToolBench document text")', () => {
  it('reproduces the documented example (Transfermarkt search)', () => {
    const entry = parsePyJson(
      '{"category_name":"Data","tool_name":"TheClique","api_name":"Transfermarkt search","api_description":"Search by name",' +
        '"required_parameters":[{"name":"name","type":"string","description":"","default":"messi"}],"optional_parameters":[],"method":"GET",' +
        '"template_response":{"Clubs":[{"link":"str","name":"str","slug":"str","_list_length":10}],"Managers & officials":[{"link":"str","name":"str","slug":"str","_list_length":5}],' +
        '"Players":[{"link":"str","name":"str","slug":"str","_list_length":10}],"Referees":[{"link":"str","name":"str","slug":"str","_list_length":10}]}}',
    );
    expect(toolBenchDocText(entry)).toBe(
      'Data, TheClique, Transfermarkt search, Search by name, required_params: [{"name": "name", "type": "string", "description": "", "default": "messi"}], optional_params: [], return_schema: {"Clubs": [{"link": "str", "name": "str", "slug": "str", "_list_length": 10}], "Managers & officials": [{"link": "str", "name": "str", "slug": "str", "_list_length": 5}], "Players": [{"link": "str", "name": "str", "slug": "str", "_list_length": 10}], "Referees": [{"link": "str", "name": "str", "slug": "str", "_list_length": 10}]}',
    );
  });

  it('missing keys give "" (JSON) or empty fields; explicit null gives null', () => {
    expect(toolBenchDocText(parsePyJson('{"tool_name":"T","api_name":null,"template_response":null}'))).toBe(
      ', T, , , required_params: "", optional_params: "", return_schema: null',
    );
  });
});

describe('tools.jsonl corpus and query mapping', () => {
  const docs = parseToolBenchTools(readFileSync(fx('tools.jsonl'), 'utf8'), 'tools.jsonl');
  const queries = parseToolBenchQueries(readFileSync(fx('queries.json'), 'utf8'), 'queries.json');

  it('reads the file line by line into the same documents; without entries, the same strings', () => {
    expect(readToolBenchTools(fx('tools.jsonl'))).toEqual(docs);
    const lean = readToolBenchTools(fx('tools.jsonl'), { entries: false });
    expect(lean.map((d) => d.entry)).toEqual(docs.map(() => NO_ENTRY));
    expect(lean.map(({ entry: _, ...d }) => d)).toEqual(docs.map(({ entry: _, ...d }) => d));
  });

  it('builds one document per API with the tool JSON → ApiEntry mapping and Python JSON', () => {
    expect(docs.map((d) => `${d.category}/${d.tool}/${d.api}`)).toEqual([
      'Weather/SkyCast/Current weather',
      'Weather/SkyCast/Daily forecast',
      'Sports/GoalLine/League table',
      'Weather/SkyCast/Current weather',
    ]);
    expect(docs[0]?.text).toBe(
      'Weather, SkyCast, Current weather, Current conditions for a city, required_params: [{"name": "city", "type": "STRING", "description": "City name", "default": "Paris"}], optional_params: [{"name": "units", "type": "NUMBER", "description": "", "default": 3.0}], return_schema: ""',
    );
    expect(docs[2]?.text).toContain('"default": "Ligue 1 \\u2013 Uber Eats"');
    expect(docs[3]?.text).toBe(
      'Weather, SkyCast, Current weather, Old current conditions, required_params: "", optional_params: "", return_schema: ""',
    );
    expect(toolBenchLexicalText(docs[1]!)).toBe(
      'Weather. SkyCast. Forecasts for every city. Daily forecast. Seven-day forecast',
    );
  });

  it('maps gold pairs by (category, tool, api) and description; drops incomplete queries; merges texts', () => {
    expect(queries[1]?.query).toBe('Who leads the football league?');
    const set = buildToolBenchRetrievalSet(queries, docs, 'G1:');
    // query 12 needs "Top scorers", absent from the corpus
    expect(set.dropped).toEqual(['G1:12']);
    // 11 and 13 share a text: one query with both relevant docs (doc 0 chosen over doc 3 by description)
    expect(set.queries).toEqual([
      { id: 'G1:11', text: 'Is it raining in Paris right now?', relevant: [0, 1] },
    ]);
  });

  it('names the file, record and field of bad input', () => {
    expect(() => parseToolBenchQueries('[{"query": 3}]', 'q.json')).toThrow(
      /q\.json: record 1: field "query"/,
    );
    expect(() => parseToolBenchTools('{"category": "X"}', 't.jsonl')).toThrow(
      /t\.jsonl: record line 1: field "tool_name"/,
    );
  });
});
