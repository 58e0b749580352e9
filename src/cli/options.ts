import { closeSync, existsSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ApiaryError, writeFileAtomic } from '../shared/index.js';

/**
 * One parser per kind of command-line value. Every rejection is an `ApiaryError('USAGE')` with one
 * message shape, `<flag> must be <what it accepts> (got "<value>")`, so users read the same sentence
 * from every command. `flag` is the name as typed (`--seed`, `-k`, `<benchmark>`). Parsers with a
 * `string | undefined` value pass `undefined` through (an option that was not given).
 */

/** The one message format of a rejected value. */
export function usageError(flag: string, expected: string, got: string): ApiaryError {
  return new ApiaryError('USAGE', `${flag} must be ${expected} (got "${got}")`);
}

export interface RangeOptions {
  /** Smallest accepted value (inclusive). */
  min?: number;
  /** Largest accepted value (inclusive). */
  max?: number;
}

function rangeText(noun: string, { min, max }: RangeOptions): string {
  if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
  if (min !== undefined) return `${noun} ≥ ${min}`;
  if (max !== undefined) return `${noun} ≤ ${max}`;
  return noun;
}

function parseNumeric(flag: string, value: string, range: RangeOptions, integer: boolean): number {
  const expected = rangeText(integer ? 'an integer' : 'a number', range);
  // Number('') and Number(' ') are 0: an empty value is not a number.
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (
    !Number.isFinite(n) ||
    (integer && !Number.isInteger(n)) ||
    (range.min !== undefined && n < range.min) ||
    (range.max !== undefined && n > range.max)
  )
    throw usageError(flag, expected, value);
  return n;
}

/** An integer within an optional range: `--seed 7`, `--concurrency 4` (with `{ min: 1 }`). */
export function parseInteger(flag: string, value: string, range?: RangeOptions): number;
export function parseInteger(
  flag: string,
  value: string | undefined,
  range?: RangeOptions,
): number | undefined;
export function parseInteger(flag: string, value: string | undefined, range: RangeOptions = {}) {
  return value === undefined ? undefined : parseNumeric(flag, value, range, true);
}

/** A finite number within an optional range: `--temperature 0.7`. */
export function parseNumber(flag: string, value: string, range?: RangeOptions): number;
export function parseNumber(
  flag: string,
  value: string | undefined,
  range?: RangeOptions,
): number | undefined;
export function parseNumber(flag: string, value: string | undefined, range: RangeOptions = {}) {
  return value === undefined ? undefined : parseNumeric(flag, value, range, false);
}

/** One of a fixed set of words: `--approve auto`. */
export function parseChoice<T extends string>(flag: string, value: string, choices: readonly T[]): T;
export function parseChoice<T extends string>(
  flag: string,
  value: string | undefined,
  choices: readonly T[],
): T | undefined;
export function parseChoice<T extends string>(
  flag: string,
  value: string | undefined,
  choices: readonly T[],
) {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value))
    throw usageError(flag, `one of ${choices.join(' | ')}`, value);
  return value as T;
}

/**
 * A comma-separated list: items trimmed, empty items dropped, repeats kept once (first place).
 * With `choices`, every item must be one of them (the message quotes the first item that is not).
 */
export function parseList(flag: string, value: string): string[];
export function parseList(flag: string, value: string | undefined): string[] | undefined;
export function parseList<T extends string>(flag: string, value: string, choices: readonly T[]): T[];
export function parseList<T extends string>(
  flag: string,
  value: string | undefined,
  choices: readonly T[],
): T[] | undefined;
export function parseList(flag: string, value: string | undefined, choices?: readonly string[]) {
  if (value === undefined) return undefined;
  const items = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const bad = choices && items.find((i) => !choices.includes(i));
  if (choices && bad !== undefined)
    throw usageError(flag, `a comma-separated list of ${choices.join(' | ')}`, bad);
  return items;
}

export interface KeyValueRule {
  /** How the value is written, e.g. `FILE=HASH` (the words name the key and value in messages). */
  shape: string;
  /** Accepted keys (default: any non-empty key). */
  keys?: readonly string[];
  /** Accepted values (default: anything, even empty) and what it means in words. */
  value?: { pattern: RegExp; meaning: string };
}

/** `KEY=VALUE` (split at the first `=`, both sides trimmed): `--sha256 test_ss.json=<hex>`. */
export function parseKeyValue(flag: string, value: string, rule: KeyValueRule): [string, string] {
  const [keyName, valueName] = rule.shape.split('=');
  const at = value.indexOf('=');
  const key = at < 0 ? '' : value.slice(0, at).trim();
  const val = at < 0 ? '' : value.slice(at + 1).trim();
  if (!key) throw usageError(flag, rule.shape, value);
  if (rule.keys && !rule.keys.includes(key))
    throw usageError(flag, `${rule.shape} with ${keyName} one of ${rule.keys.join(' | ')}`, value);
  if (rule.value && !rule.value.pattern.test(val))
    throw usageError(flag, `${rule.shape} with ${valueName} ${rule.value.meaning}`, value);
  return [key, val];
}

/** A repeatable `KEY=VALUE` option as an object (a later value for the same key wins). */
export function parseKeyValues(
  flag: string,
  values: readonly string[],
  rule: KeyValueRule,
): Record<string, string> {
  return Object.fromEntries(values.map((v) => parseKeyValue(flag, v, rule)));
}

/** A path to a file that exists (not a folder); returned as given. */
export function parseExistingFile(flag: string, value: string): string;
export function parseExistingFile(flag: string, value: string | undefined): string | undefined;
export function parseExistingFile(flag: string, value: string | undefined) {
  if (value === undefined) return undefined;
  if (!value || !existsSync(value) || !statSync(value).isFile())
    throw usageError(flag, 'an existing file', value);
  return value;
}

export interface OutputPathOptions {
  /**
   * Set by commands that offer `--overwrite`: `false` refuses an existing file (naming the flag to
   * pass), `true` accepts it. Left out, an existing file is accepted (the command appends or repairs).
   */
  overwrite?: boolean;
}

/** Whether a file can be created in `folder`: tried for real, since `access()` says yes to root. */
function canCreateIn(folder: string): boolean {
  const probe = join(folder, `.apiary-write-probe-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx'));
    rmSync(probe, { force: true });
    return true;
  } catch {
    return false;
  }
}

function canWriteFile(file: string): boolean {
  try {
    closeSync(openSync(file, 'r+'));
    return true;
  } catch {
    return false;
  }
}

/**
 * A path to write, checked before any work so a long run never fails at its last step: not empty,
 * not an existing folder (or, for `kind: 'directory'`, not an existing file), its nearest existing
 * parent is a folder we can create files in, an existing file is writable, and with
 * `{ overwrite: false }` an existing file is refused. Returned as given; the command creates missing
 * parent folders or not, as it documents, and writes through `writeOutputFile` (temp file + rename).
 */
export function parseOutputPath(
  flag: string,
  value: string,
  kind?: 'file' | 'directory',
  options?: OutputPathOptions,
): string;
export function parseOutputPath(
  flag: string,
  value: string | undefined,
  kind?: 'file' | 'directory',
  options?: OutputPathOptions,
): string | undefined;
export function parseOutputPath(
  flag: string,
  value: string | undefined,
  kind: 'file' | 'directory' = 'file',
  options: OutputPathOptions = {},
) {
  if (value === undefined) return undefined;
  const noun = kind === 'file' ? 'a file path' : 'a folder path';
  if (!value.trim()) throw usageError(flag, noun, value);
  const full = resolve(value);
  const exists = existsSync(full);
  if (exists && statSync(full).isDirectory() !== (kind === 'directory'))
    throw usageError(flag, `${noun}, not a ${kind === 'file' ? 'folder' : 'file'}`, value);
  if (exists && kind === 'file') {
    if (options.overwrite === false)
      throw usageError(flag, `a file that does not exist yet; pass --overwrite to replace it`, value);
    if (!canWriteFile(full)) throw usageError(flag, 'a writable file', value);
    return value;
  }
  let parent = dirname(full);
  while (!existsSync(parent)) parent = dirname(parent);
  if (!statSync(parent).isDirectory())
    throw usageError(flag, 'a path under a folder, not under a file', value);
  if (!canCreateIn(exists ? full : parent))
    throw usageError(flag, `a path in a writable folder (${parent} is not)`, value);
  return value;
}

/**
 * Writes a checked output (`parseOutputPath`) whole or not at all: a sibling temp file, then a
 * rename, so an interrupted or failed write leaves the earlier file intact. Missing parent folders
 * are created. A failure is a USAGE error naming the flag and the path.
 */
export function writeOutputFile(flag: string, path: string, content: string | Uint8Array): void {
  try {
    writeFileAtomic(path, typeof content === 'string' ? content : Buffer.from(content));
  } catch (error) {
    throw new ApiaryError('USAGE', `cannot write ${flag} ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
