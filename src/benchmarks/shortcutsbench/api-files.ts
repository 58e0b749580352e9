import { InputInvalidError } from '../../shared/index.js';
import { readShortcutsFile } from './data-files.js';
import { isJsonObject } from './json-value.js';
import { defaultOutputNames } from './normalise.js';
import type { ShortcutsApis } from './teacher-forced.js';

/** all_api2info.json and all_api2paraname2paratype.json of `dir` (docs/shortcutsbench.md §4.1, §4.2). */
export function loadShortcutsApis(dir: string): ShortcutsApis {
  const info = readShortcutsFile(dir, 'apiInfo');
  if (!isJsonObject(info.value))
    throw new InputInvalidError({ file: info.path }, 'expected a JSON object of API id → description');
  const descriptions = new Map<string, string>();
  for (const [id, text] of Object.entries(info.value)) {
    if (typeof text !== 'string')
      throw new InputInvalidError({ file: info.path, record: id }, 'expected the description text');
    descriptions.set(id, text);
  }
  const types = readShortcutsFile(dir, 'paraTypes');
  if (!isJsonObject(types.value))
    throw new InputInvalidError({ file: types.path }, 'expected a JSON object of API id → parameter types');
  const paraTypes: Record<string, Record<string, string>> = {};
  for (const [id, params] of Object.entries(types.value)) {
    if (!isJsonObject(params))
      throw new InputInvalidError({ file: types.path, record: id }, 'expected parameter name → type');
    paraTypes[id] = Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : String(v)]),
    );
  }
  return { info: descriptions, paraTypes, defaultOutputs: defaultOutputNames(paraTypes) };
}
