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
import { toolBenchDocText } from './doc-text.js';

/** One API of the ToolBench tool environment, ready for retrieval. */
export interface ToolBenchDoc {
  category: string;
  tool: string;
  /** File stem of the tool (`tool_file` in tools.jsonl). */
  toolFile: string;
  api: string;
  description: string;
  toolDescription: string;
  /** The ApiEntry built from the tool JSON (specs §1.2 mapping), key order as ToolBench. */
  entry: PyObject;
  /** Document text per specs §3 (what ToolBench's retriever embeds). */
  text: string;
}

/**
 * The "lexical" view used by the BM25 calibration: category, tool name, tool description,
 * API name and API description, separated by ". ".
 */
export function toolBenchLexicalText(d: ToolBenchDoc): string {
  return [d.category, d.tool, d.toolDescription, d.api, d.description].filter(Boolean).join('. ');
}

const obj = (entries: Array<[string, PyJson]>): PyObject => ({ kind: 'object', entries: new Map(entries) });

/**
 * Reads `tools.jsonl` (one StableToolBench tool JSON per line plus `category`, `tool_file`) into
 * one document per API, in file order. Each ApiEntry is
 * `{category_name, tool_name, api_name, api_description, required_parameters, optional_parameters,
 * method}` (no `template_response`: the tool JSON has none, so `return_schema: ""`).
 */
export function parseToolBenchTools(text: string, file: string): ToolBenchDoc[] {
  const docs: ToolBenchDoc[] = [];
  let lineNo = 0;
  for (const line of text.split('\n')) {
    lineNo++;
    if (!line.trim()) continue;
    const tool = parsePyJson(line, `${file}: line ${lineNo}`);
    const loc = { file, record: `line ${lineNo}` };
    const str = (v: PyJson | undefined, field: string, optional = false): string => {
      const s = pyString(v);
      if (s !== undefined) return s;
      if (optional && (v === undefined || v === null)) return '';
      throw new InputInvalidError({ ...loc, field }, 'expected a string');
    };
    const category = str(pyGet(tool, 'category'), 'category');
    const toolName = str(pyGet(tool, 'tool_name'), 'tool_name');
    const toolFile = str(pyGet(tool, 'tool_file'), 'tool_file');
    const toolDescription = str(pyGet(tool, 'tool_description'), 'tool_description', true);
    const apis = pyGet(tool, 'api_list');
    if (!Array.isArray(apis)) throw new InputInvalidError({ ...loc, field: 'api_list' }, 'expected an array');
    apis.forEach((api, i) => {
      if (!isPyObject(api))
        throw new InputInvalidError({ ...loc, field: `api_list[${i}]` }, 'expected an object');
      const name = str(pyGet(api, 'name'), `api_list[${i}].name`);
      const desc = pyGet(api, 'description');
      const entries: Array<[string, PyJson]> = [
        ['category_name', category],
        ['tool_name', toolName],
        ['api_name', name],
        ['api_description', desc === undefined ? null : desc],
      ];
      for (const k of ['required_parameters', 'optional_parameters', 'method']) {
        const v = pyGet(api, k);
        if (v !== undefined) entries.push([k, v]);
      }
      const entry = obj(entries);
      docs.push({
        category,
        tool: toolName,
        toolFile,
        api: name,
        description: pyString(desc) ?? '',
        toolDescription,
        entry,
        text: toolBenchDocText(entry),
      });
    });
  }
  return docs;
}

export function readToolBenchTools(path: string): ToolBenchDoc[] {
  return parseToolBenchTools(readTextFile(path), path);
}
