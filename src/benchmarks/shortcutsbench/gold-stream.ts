import { createReadStream } from 'node:fs';
import { InputInvalidError } from '../../shared/index.js';
import { checkedGoldRecord, shortcutsFilePath } from './data-files.js';
import { type TopLevelElement, TopLevelJsonSplitter } from './json-split.js';
import { type JsonObject, parseJson } from './json-value.js';

/** Characters read per chunk. */
const CHUNK = 1 << 20;

/**
 * The top-level elements of a JSON array or object file, one at a time (bounded memory). A file
 * that is not valid JSON fails with its name and the character position.
 */
export async function* streamTopLevelJson(
  path: string,
  expect: 'array' | 'object',
): AsyncGenerator<TopLevelElement> {
  const splitter = new TopLevelJsonSplitter();
  try {
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: CHUNK })) {
      const elements = splitter.push(chunk as string);
      if (splitter.kind !== undefined && splitter.kind !== expect)
        throw new InputInvalidError({ file: path }, `expected a JSON ${expect}, found an ${splitter.kind}`);
      yield* elements;
    }
    splitter.end();
  } catch (e) {
    if (e instanceof SyntaxError)
      throw new InputInvalidError({ file: path }, `not valid JSON (${e.message})`, { cause: e });
    throw e;
  }
}

/**
 * The gold shortcuts (docs/shortcutsbench.md §2) read record by record: the same map as `loadGoldShortcuts`
 * (null shortcuts skipped, later duplicates win), keeping only the URLs `keep` accepts so that memory holds
 * the shortcuts evaluated, not the whole file.
 */
export async function streamGoldShortcuts(
  dir: string,
  keep: (url: string) => boolean = () => true,
): Promise<Map<string, JsonObject>> {
  const path = shortcutsFilePath(dir, 'gold');
  const out = new Map<string, JsonObject>();
  for await (const record of goldRecords(path))
    if (keep(record.URL as string)) out.set(record.URL as string, record);
  return out;
}

/** Every gold record with a shortcut, in file order, checked as `loadGoldShortcuts` checks them. */
export async function* goldRecords(path: string): AsyncGenerator<JsonObject> {
  for await (const { index, text } of streamTopLevelJson(path, 'array')) {
    let value: ReturnType<typeof parseJson>;
    try {
      value = parseJson(text);
    } catch (e) {
      throw new InputInvalidError(
        { file: path, record: index + 1 },
        `not valid JSON (${(e as Error).message})`,
        {
          cause: e,
        },
      );
    }
    const record = checkedGoldRecord(value, index, path);
    if (record) yield record;
  }
}
