import {
  detachedString,
  forEachLineOfFile,
  InputInvalidError,
  isPyObject,
  type PyJson,
  type PyObject,
  parsePyJson,
  pyGet,
  pyString,
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
  /** The ApiEntry built from the tool JSON (mapping in docs/retrieval.md, "ToolBench query format"), key order as ToolBench. */
  entry: PyObject;
  /** Document text per docs/retrieval.md, "ToolBench document text" (what ToolBench's retriever embeds). */
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

/** The entry of an API whose parsed JSON was dropped (`entries: false`). */
export const NO_ENTRY: PyObject = Object.freeze({ kind: 'object', entries: new Map() }) as PyObject;

export interface ToolsReadOptions {
  /**
   * Keep each API's parsed JSON entry (default true). Without them, each API's strings are also
   * copied out of the line they are sliced from (`detachedString`), so no line stays alive: on
   * the 46,802 APIs the entries are about 65 MiB of heap, and the lines 85 MB more (170 MB when
   * the file is read as one string, two bytes per character as it holds non-Latin-1 characters).
   */
  entries?: boolean;
}

/**
 * Reads `tools.jsonl` (one StableToolBench tool JSON per line plus `category`, `tool_file`) into
 * one document per API, in file order. Each ApiEntry is
 * `{category_name, tool_name, api_name, api_description, required_parameters, optional_parameters,
 * method}` (no `template_response`: the tool JSON has none, so `return_schema: ""`).
 */
export function parseToolBenchTools(text: string, file: string, opts: ToolsReadOptions = {}): ToolBenchDoc[] {
  const docs: ToolBenchDoc[] = [];
  text.split('\n').forEach((line, i) => {
    toolLineDocs(line, i + 1, file, opts, docs);
  });
  return docs;
}

/** `parseToolBenchTools` of a file read line by line (never one string of the whole 85 MB file). */
export function readToolBenchTools(path: string, opts: ToolsReadOptions = {}): ToolBenchDoc[] {
  const docs: ToolBenchDoc[] = [];
  forEachLineOfFile(path, (line, lineNo) => toolLineDocs(line, lineNo, path, opts, docs));
  return docs;
}

/** Appends the documents of one tools.jsonl line (a tool) to `docs`. */
function toolLineDocs(
  line: string,
  lineNo: number,
  file: string,
  opts: ToolsReadOptions,
  docs: ToolBenchDoc[],
): void {
  if (!line.trim()) return;
  const keep = opts.entries !== false;
  const own = keep ? (s: string) => s : detachedString;
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
  // one copy of the tool's strings for all its APIs
  const shared = keep
    ? { category, toolName, toolFile, toolDescription }
    : {
        category: own(category),
        toolName: own(toolName),
        toolFile: own(toolFile),
        toolDescription: own(toolDescription),
      };
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
      category: shared.category,
      tool: shared.toolName,
      toolFile: shared.toolFile,
      api: own(name),
      description: own(pyString(desc) ?? ''),
      toolDescription: shared.toolDescription,
      entry: keep ? entry : NO_ENTRY,
      // concatenated from slices of the line: a copy, or it would keep the line alive
      text: own(toolBenchDocText(entry)),
    });
  });
}
