import { type PyJson, pyGet, pyJsonDumps, pyString } from '../../shared/index.js';

/**
 * ToolBench's retrieval document text (docs/retrieval.md, "ToolBench document text"), from an ApiEntry:
 *   C, T, A, D, required_params: json(..), optional_params: json(..), return_schema: json(..)
 * with Python `json.dumps` formatting; a missing key gives `""`, a missing/null name field "".
 */
export function toolBenchDocText(entry: PyJson): string {
  const field = (k: string) => pyString(pyGet(entry, k)) ?? '';
  const json = (k: string) => {
    const v = pyGet(entry, k);
    return v === undefined ? '""' : pyJsonDumps(v);
  };
  return (
    `${field('category_name')}, ${field('tool_name')}, ${field('api_name')}, ${field('api_description')}` +
    `, required_params: ${json('required_parameters')}` +
    `, optional_params: ${json('optional_parameters')}` +
    `, return_schema: ${json('template_response')}`
  );
}
