import {
  InputInvalidError,
  isPyObject,
  type PyJson,
  type PyObject,
  parsePyJson,
  pyGet,
  pyString,
  readTextFile,
} from '../../shared/index.js';

/** One ToolBench / StableToolBench instruction query (docs/retrieval.md, "ToolBench query format"). */
export interface ToolBenchQuery {
  queryId: number | string;
  /** The query text (first element when the file stores a list). */
  query: string;
  /** Gold `[tool_name, api_name]` pairs. */
  relevant: Array<[string, string]>;
  /** The candidate ApiEntries, parsed losslessly (key order, float lexemes). */
  apiList: PyObject[];
}

/** Parses a query file (a JSON array); errors name the file, the record index and the field. */
export function parseToolBenchQueries(text: string, file: string): ToolBenchQuery[] {
  const json = parsePyJson(text, file);
  if (!Array.isArray(json)) throw new InputInvalidError({ file }, 'expected a JSON array of queries');
  return json.map((q, i) => {
    const loc = { file, record: i + 1 }; // records count from 1, as lines do
    if (!isPyObject(q)) throw new InputInvalidError(loc, 'expected an object');
    let queryV = pyGet(q, 'query');
    if (Array.isArray(queryV)) queryV = queryV[0];
    const query = pyString(queryV);
    if (query === undefined) throw new InputInvalidError({ ...loc, field: 'query' }, 'expected a string');
    const idV = pyGet(q, 'query_id');
    const queryId =
      typeof idV === 'object' && idV !== null && !Array.isArray(idV) && idV.kind === 'number'
        ? Number(idV.lexeme)
        : (pyString(idV) ?? i);
    const relV = pyGet(q, 'relevant APIs');
    if (!Array.isArray(relV))
      throw new InputInvalidError({ ...loc, field: 'relevant APIs' }, 'expected a list of [tool, api] pairs');
    const relevant = relV.map((p: PyJson, j): [string, string] => {
      const t = Array.isArray(p) ? pyString(p[0]) : undefined;
      const a = Array.isArray(p) ? pyString(p[1]) : undefined;
      if (t === undefined || a === undefined)
        throw new InputInvalidError(
          { ...loc, field: `relevant APIs[${j}]` },
          'expected [tool_name, api_name]',
        );
      return [t, a];
    });
    const listV = pyGet(q, 'api_list') ?? [];
    if (!Array.isArray(listV))
      throw new InputInvalidError({ ...loc, field: 'api_list' }, 'expected an array');
    const apiList = listV.map((e, j) => {
      if (!isPyObject(e))
        throw new InputInvalidError({ ...loc, field: `api_list[${j}]` }, 'expected an object');
      return e;
    });
    return { queryId, query, relevant, apiList };
  });
}

export function readToolBenchQueries(path: string): ToolBenchQuery[] {
  return parseToolBenchQueries(readTextFile(path), path);
}
