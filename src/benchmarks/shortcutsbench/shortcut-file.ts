import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { type PlistValue, parse as parseXmlPlist } from 'plist';
import { ApiaryError, InputInvalidError } from '../../shared/index.js';
import { readBinaryPlist } from './binary-plist.js';
import { isJsonObject, type Json, type JsonObject, LosslessNumber, parseJson, setOwn } from './json-value.js';
import { checkXmlPlistBounds } from './xml-plist-bounds.js';

/**
 * Reading a user's own shortcut (`.shortcut`, `.plist`, or the JSON ShortcutsBench stores) into
 * the action model: the `WFWorkflowActions` list as the same lossless JSON the gold file holds.
 */

export type ShortcutFileFormat = 'binary-plist' | 'xml-plist' | 'json';

export interface ImportedShortcut {
  file: string;
  /** The file name without its extension (unsigned plists do not carry the shortcut's name). */
  name: string;
  format: ShortcutFileFormat;
  /** The whole workflow dictionary (WFWorkflowActions, WFWorkflowIcon, …). */
  workflow: JsonObject;
  actions: Json[];
}

/** Why a signed shortcut cannot be read, and how to get the unsigned plist instead. */
const SIGNED_SHORTCUT_HELP =
  'it is a signed shortcut (an Apple Encrypted Archive, "AEA1"), which is what the Shortcuts app shares ' +
  'and `shortcuts sign` writes; its actions are only readable with Apple tooling. Use the unsigned ' +
  'property list instead: for an iCloud link https://www.icloud.com/shortcuts/<id>, the JSON at ' +
  'https://www.icloud.com/shortcuts/api/records/<id> gives fields.shortcut.value.downloadURL, an unsigned ' +
  'binary plist (how ShortcutsBench collected its shortcuts); a .plist/.shortcut written before iOS 15 or ' +
  'by a tool that exports unsigned also works';

/**
 * Largest shortcut file read. Shortcuts are kilobytes to a few MB (an embedded icon or image is the
 * bulk); a file this large is something else, refused before it is read.
 */
export const MAX_SHORTCUT_FILE_BYTES = 64 * 1024 * 1024;

const BPLIST_MAGIC = 'bplist00';
const AEA_MAGIC = 'AEA1';

function startsWithAscii(bytes: Uint8Array, magic: string): boolean {
  if (bytes.length < magic.length) return false;
  for (let i = 0; i < magic.length; i++) if (bytes[i] !== magic.charCodeAt(i)) return false;
  return true;
}

/** Which reader a file's first bytes call for (undefined: not a shortcut we can read). */
export function sniffShortcutFormat(bytes: Uint8Array): ShortcutFileFormat | 'signed' | undefined {
  if (startsWithAscii(bytes, BPLIST_MAGIC)) return 'binary-plist';
  if (startsWithAscii(bytes, AEA_MAGIC)) return 'signed';
  const head = new TextDecoder()
    .decode(bytes.subarray(0, 256))
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (head.startsWith('<?xml') || head.startsWith('<!DOCTYPE plist') || head.startsWith('<plist'))
    return 'xml-plist';
  if (head.startsWith('{')) return 'json';
  return undefined;
}

/**
 * A plist value as lossless JSON. Known limit: the plist readers give JS numbers, so a `<real>`
 * with an integral value (1.0) comes back as the int 1 (Python's plistlib keeps 1.0). Dates become
 * ISO strings and data blobs base64 strings.
 */
export function plistToJson(v: PlistValue): Json {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return String(v);
    return new LosslessNumber(Number.isInteger(v) && Math.abs(v) < 1e21 ? v.toFixed(0) : floatText(v));
  }
  if (typeof v === 'bigint') return new LosslessNumber((v as bigint).toString());
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map(plistToJson);
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) setOwn(out, k, plistToJson(x));
  return out;
}

/** A float's shortest text, always with a `.` or exponent so that it reads back as a float. */
function floatText(v: number): string {
  const s = String(v);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

/** Reads one shortcut file; signed ones are refused with {@link SIGNED_SHORTCUT_HELP}. */
export function readShortcutFile(file: string): ImportedShortcut {
  let bytes: Uint8Array;
  try {
    const size = statSync(file).size;
    if (size > MAX_SHORTCUT_FILE_BYTES) throw tooLarge(file, size);
    bytes = readFileSync(file);
  } catch (e) {
    if (e instanceof InputInvalidError) throw e;
    throw new ApiaryError('NOT_FOUND', `cannot read shortcut file ${file}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return parseShortcutBytes(bytes, file);
}

/** {@link readShortcutFile} on bytes already read (`file` names it in errors). */
function tooLarge(file: string, bytes: number): InputInvalidError {
  return new InputInvalidError(
    { file },
    `${bytes} bytes is larger than a shortcut may be (${MAX_SHORTCUT_FILE_BYTES} bytes)`,
  );
}

export function parseShortcutBytes(bytes: Uint8Array, file: string): ImportedShortcut {
  if (bytes.length > MAX_SHORTCUT_FILE_BYTES) throw tooLarge(file, bytes.length);
  const format = sniffShortcutFormat(bytes);
  if (format === 'signed') throw new InputInvalidError({ file }, `cannot import: ${SIGNED_SHORTCUT_HELP}`);
  if (format === undefined)
    throw new InputInvalidError(
      { file },
      'not a shortcut file: expected an unsigned binary plist ("bplist00"), an XML plist or JSON',
    );
  let root: Json;
  try {
    if (format === 'binary-plist') root = readBinaryPlist(bytes, file);
    else if (format === 'xml-plist') {
      const xml = Buffer.from(bytes).toString('utf8');
      checkXmlPlistBounds(xml, file);
      root = plistToJson(parseXmlPlistQuietly(xml, file));
    } else root = parseJson(Buffer.from(bytes).toString('utf8'));
  } catch (e) {
    if (e instanceof InputInvalidError) throw e;
    throw new InputInvalidError({ file }, `not a readable ${format}: ${(e as Error).message}`, { cause: e });
  }
  // ShortcutsBench's JSON may be a whole gold record: take its `shortcut`.
  if (format === 'json' && isJsonObject(root) && isJsonObject(root.shortcut)) root = root.shortcut;
  if (!isJsonObject(root) || !Array.isArray(root.WFWorkflowActions))
    throw new InputInvalidError(
      { file, field: 'WFWorkflowActions' },
      'expected a workflow dictionary with the list of actions',
    );
  const actions = root.WFWorkflowActions.map((a, i) => checkedAction(a, file, i));
  const name = basename(file).replace(/\.(shortcut|plist|json|wflow)$/i, '');
  return { file, name, format, workflow: root, actions };
}

/**
 * The `plist` package parses with xmldom, which prints its complaints to `console.error` and carries on
 * (a warning leaves a half-read file). Its complaints are caught here and the first one becomes the
 * file's INPUT_INVALID error, so a malformed file gives one coded error and nothing raw on stderr.
 */
function parseXmlPlistQuietly(xml: string, file: string): PlistValue {
  const complaints: string[] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (!text.startsWith('[xmldom')) return consoleError(...args);
    const line = /line:(\d+)/.exec(text)?.[1];
    const why = text
      .replace(/^\[xmldom \w+\]\s*/, '')
      .replace(/\s*@#\[.*$/s, '')
      .trim();
    complaints.push(line ? `line ${line}: ${why}` : why);
  };
  let value: PlistValue;
  try {
    value = parseXmlPlist(xml);
  } catch (e) {
    const why = complaints[0] ?? (e as Error).message;
    throw new InputInvalidError({ file }, `not a readable xml-plist: ${why}`, { cause: e });
  } finally {
    console.error = consoleError;
  }
  if (complaints.length) throw new InputInvalidError({ file }, `not a readable xml-plist: ${complaints[0]}`);
  return value;
}

/** An action with a string identifier; a missing parameter dictionary becomes `{}` as in the gold. */
function checkedAction(a: Json, file: string, i: number): JsonObject {
  if (!isJsonObject(a) || typeof a.WFWorkflowActionIdentifier !== 'string')
    throw new InputInvalidError(
      { file, record: i + 1, field: 'WFWorkflowActionIdentifier' },
      'expected an action dictionary with a string identifier',
    );
  const params = a.WFWorkflowActionParameters;
  if (params === undefined) return { ...a, WFWorkflowActionParameters: {} };
  if (!isJsonObject(params))
    throw new InputInvalidError(
      { file, record: i + 1, field: 'WFWorkflowActionParameters' },
      'expected a dictionary of parameters',
    );
  return a;
}
