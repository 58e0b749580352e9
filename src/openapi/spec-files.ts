import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { dirname, extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { ApiaryError, InputInvalidError, jsonDepthExceededAt, NotFoundError } from '../shared/index.js';

/**
 * Largest spec file, and largest file one `$ref` reads: the biggest public specs (GitHub's, Stripe's)
 * are 6–12 MB as YAML. Checked before parsing, so a hostile file costs no more than this in memory.
 */
export const MAX_SPEC_FILE_BYTES = 16 * 1024 * 1024;
/** All files of one spec together (the spec and every file its `$ref`s read). */
const MAX_SPEC_TOTAL_BYTES = 64 * 1024 * 1024;
/**
 * YAML aliases one document may resolve, weighted by the aliases inside what they point at (the
 * `yaml` package's count): a "billion laughs" document is refused in milliseconds.
 */
const MAX_YAML_ALIASES = 1000;
/**
 * Deepest nesting of a parsed spec. What walks it afterwards (the `$ref` parser, the schema
 * conversion) recurses; real specs nest a few dozen levels.
 */
const MAX_SPEC_DEPTH = 500;

/**
 * Reads at most `limit` bytes of `path` (one more to know it is over): a file that grows, a pipe or
 * a device can not make the read unbounded. `regularOnly` refuses pipes and devices without
 * blocking on them (a `$ref` to a FIFO would hang the read).
 */
export function readBounded(path: string, label: string, limit: number, regularOnly: boolean): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (regularOnly ? constants.O_NONBLOCK : 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError('file', label);
    throw new ApiaryError('INPUT_INVALID', `${label}: cannot read: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory())
      throw new InputInvalidError({ file: label }, 'is a folder, not a file; pass the spec file inside it');
    if (regularOnly && !stat.isFile())
      throw new InputInvalidError({ file: label }, 'is not a regular file (a pipe or a device); refused');
    if (stat.size > limit) throw tooLarge(label, limit);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, limit + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > limit) throw tooLarge(label, limit);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

const tooLarge = (label: string, limit: number): InputInvalidError =>
  new InputInvalidError({ file: label }, `is larger than ${limit / 1024 / 1024} MiB; refused unread`);

/**
 * Parses spec text (YAML, or JSON: YAML is a superset) with the bounds above. A document nested
 * deeper than the parser's stack is its own error, which is caught here too.
 */
export function parseSpecText(text: string, file: string): unknown {
  // flow brackets ([, {) are how a small file nests deep; counting them first refuses it in
  // milliseconds, where the parser would take seconds to overflow its stack
  const deepAt = jsonDepthExceededAt(text, MAX_SPEC_DEPTH);
  if (deepAt >= 0)
    throw new InputInvalidError(
      { file },
      `nested deeper than ${MAX_SPEC_DEPTH} levels at offset ${deepAt}; refused`,
    );
  let value: unknown;
  try {
    value = parseYaml(text, { maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    throw new InputInvalidError({ file }, `not YAML or JSON: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
  if (nestingExceeds(value, MAX_SPEC_DEPTH))
    throw new InputInvalidError(
      { file },
      `nested deeper than ${MAX_SPEC_DEPTH} levels (YAML aliases count as the nesting they stand for); refused`,
    );
  return value;
}

/**
 * Whether `value` nests arrays and objects deeper than `limit`. Aliases make the value a graph
 * that shares nodes, so the height of each node is computed once (iteratively: no stack to
 * overflow) and a node reached again at any depth counts with its full height.
 */
function nestingExceeds(value: unknown, limit: number): boolean {
  const height = new Map<object, number>();
  const stack: Array<{ node: object; expanded: boolean }> = [];
  if (value !== null && typeof value === 'object') stack.push({ node: value, expanded: false });
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    const children = Object.values(top.node).filter((c): c is object => c !== null && typeof c === 'object');
    if (!top.expanded) {
      top.expanded = true;
      height.set(top.node, 0); // in progress: a cycle back to it adds nothing
      for (const c of children) if (!height.has(c)) stack.push({ node: c, expanded: false });
      continue;
    }
    stack.pop();
    let h = 1;
    for (const c of children) h = Math.max(h, 1 + (height.get(c) ?? 0));
    if (h > limit) return true;
    height.set(top.node, h);
  }
  return false;
}

/** Who may be read through a `$ref`: files under one folder, or nothing (a spec from a URL). */
type RefPolicy = { files: 'confined'; folder: string } | { files: 'none'; url: string };

/** A `json-schema-ref-parser` resolver: what it is given of each external `$ref` it resolves. */
interface RefFile {
  url: string;
  reference?: string;
  baseUrl?: string;
}

/**
 * The only reader of files behind `$ref`s: it refuses a network URL, any file when the spec came
 * from a URL, and a file whose real path (symlinks resolved) is outside the spec's folder; it reads
 * a regular file of bounded size and parses it with the same bounds as the spec. Each refusal is
 * an `INPUT_INVALID` naming the file that holds the `$ref` and the JSON pointer of the `$ref`.
 */
export class SpecRefReader {
  private readonly realFolder: string | undefined;
  private bytesRead: number;
  /** The first refusal, kept whole: the `$ref` parser wraps what a resolver throws in its own error. */
  refusal: ApiaryError | undefined;

  constructor(
    private readonly policy: RefPolicy,
    /** The file the spec was read from or its URL (what errors name for the spec's own `$ref`s). */
    private readonly specName: string,
    /** The absolute path the `$ref` parser resolves the spec's relative `$ref`s from. */
    private readonly specPath: string,
    specBytes: number,
  ) {
    this.bytesRead = specBytes;
    // a spec parsed from text may name a folder that does not exist: nothing in it can be read then
    this.realFolder = policy.files === 'confined' ? realpathOrSelf(policy.folder) : undefined;
  }

  /** The resolver plugin: every external `$ref` comes here, never to the library's file or http readers. */
  readonly resolver = {
    order: 1,
    canRead: true,
    read: (file: RefFile): Buffer => {
      try {
        return this.read(file);
      } catch (error) {
        if (error instanceof ApiaryError) this.refusal ??= error;
        throw error;
      }
    },
  };

  /** The parser plugin: YAML/JSON with the spec's bounds; any other file is its text, as the library's text parser does. */
  readonly parser = {
    order: 1,
    canParse: true,
    allowEmpty: true,
    parse: (file: RefFile & { data: Buffer }): unknown => {
      const text = file.data.toString('utf8');
      const ext = extname(this.pathOf(file.url)).toLowerCase();
      if (ext !== '' && ext !== '.yaml' && ext !== '.yml' && ext !== '.json') return text;
      try {
        return parseSpecText(text, this.pathOf(file.url));
      } catch (error) {
        if (error instanceof ApiaryError) this.refusal ??= error;
        throw error;
      }
    },
  };

  private read(file: RefFile): Buffer {
    const where = this.whereIs(file);
    const ref = JSON.stringify(file.reference ?? file.url);
    if (!isFileSystemUrl(file.url))
      throw new InputInvalidError(
        where,
        `$ref ${ref} would be fetched over the network; Apiary reads no remote $refs: download the file next to the spec, refer to it by a relative path and import the local copy`,
      );
    if (this.policy.files === 'none')
      throw new InputInvalidError(
        where,
        `$ref ${ref} names a file, but a spec read from a URL may only refer inside itself ("#/…"): download the spec with its files into one folder and import the local copy`,
      );
    const path = this.pathOf(file.url);
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new InputInvalidError(where, `$ref ${ref}: no such file ${path}`);
    }
    const rel = relative(this.realFolder!, real);
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
      throw new InputInvalidError(
        where,
        `$ref ${ref} reads ${real}, outside the spec's folder ${this.realFolder}; a spec may only refer to files in its own folder and below`,
      );
    const content = readBounded(real, path, MAX_SPEC_FILE_BYTES, true);
    this.bytesRead += content.length;
    if (this.bytesRead > MAX_SPEC_TOTAL_BYTES)
      throw new InputInvalidError(
        where,
        `$ref ${ref}: the spec and its files together are larger than ${MAX_SPEC_TOTAL_BYTES / 1024 / 1024} MiB; refused`,
      );
    return content;
  }

  /** The file holding the `$ref` (the spec's own name for the spec) and the pointer of the `$ref`. */
  private whereIs(file: RefFile): { file: string; field: string } {
    const base = file.baseUrl ?? '';
    const hash = base.indexOf('#');
    const holder = hash < 0 ? base : base.slice(0, hash);
    const pointer = hash < 0 ? '' : decodeFragment(base.slice(hash + 1));
    const holderPath = holder ? this.pathOf(holder) : this.specPath;
    return {
      file: holderPath === this.specPath ? this.specName : holderPath,
      field: `${pointer}/$ref`,
    };
  }

  /** A file system path from the library's URL form of it (percent-encoded, or `file://`). */
  private pathOf(url: string): string {
    try {
      if (/^file:/i.test(url)) return fileURLToPath(url);
      return resolve(dirname(this.specPath), decodeURIComponent(url.replace(/%(?![0-9A-Fa-f]{2})/g, '%25')));
    } catch {
      return url;
    }
  }
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** A path or a `file:` URL; anything else with a scheme (`http:`, `https:`, `ftp:`) is remote. */
const isFileSystemUrl = (url: string): boolean => !/^[a-z][a-z0-9+.-]+:/i.test(url) || /^file:/i.test(url);

function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}
