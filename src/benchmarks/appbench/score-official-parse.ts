/**
 * The official AppBench parsers, reproduced with their quirks (docs/appbench.md, "Official parsers"):
 * the reply line splitter (`discompose_app_api`) and the call parser (`extract_name_params`).
 * Python semantics are kept where they differ from JavaScript: `\w` and `\s` are Unicode-aware,
 * `.` matches everything but `\n`, `str.strip()` strips Python's whitespace set.
 */

import { PY_WHITESPACE, pyStrip, pyStripChars } from '../../shared/index.js';

/** Python's `str.isspace()` set (also what `\s` matches in a Python 3 `str` pattern). */
const PY_SPACE = PY_WHITESPACE;
/** Python's `\w` on `str`: letters, digits/numerics and `_`. */
const PY_WORD = '[\\p{L}\\p{N}_]';
const PY_S = `[${PY_SPACE}]`;

export { pyStripChars };

/** `re.match(r"(\w+):\s*\n*(\[.*\])", line)`: anchored at the start only. */
const LINE_RE = new RegExp(`^(${PY_WORD}+):${PY_S}*\\n*(\\[[^\\n]*\\])`, 'u');

export interface OfficialReplyParts {
  /** `decided_app`: one entry per line that yielded a non-empty App name. */
  apps: string[];
  /** `decided_api`: one entry per accepted line (brackets removed, trimmed). */
  apis: string[];
}

/**
 * Splits a reply into App names and call strings as the official code does ("Line splitting"). Lines
 * without `:` or without both `[` and `]` are ignored (the upstream fallback that recovers the
 * App from `= App_api(` always yields "" because it indexes the first character of the match).
 */
export function splitOfficialReply(reply: string): OfficialReplyParts {
  const apps: string[] = [];
  const apis: string[] = [];
  for (const line of reply.split('\n')) {
    let app: string | undefined;
    let api: string | undefined;
    const m = LINE_RE.exec(line);
    if (m) {
      app = m[1]!;
      api = pyStrip(m[2]!.replace(/[[\]]/g, ''));
    } else if (line.includes(':')) {
      if (!(line.includes('[') && line.includes(']'))) continue;
      const i = line.indexOf(':');
      app = pyStrip(line.slice(0, i));
      api = pyStrip(pyStrip(line.slice(i + 1)).replace(/[[\]]/g, ''));
    }
    if (app !== undefined && app.length > 0) apps.push(app);
    if (api !== undefined) apis.push(api);
  }
  return { apps, apis };
}

/** `(\w[\w\d_]*)\s*=\s*(\w[\w\d_]*)\(([^)]*)\)`, searched anywhere in the string. */
const CALL_RE = new RegExp(
  `(${PY_WORD}${PY_WORD}*)${PY_S}*=${PY_S}*(${PY_WORD}${PY_WORD}*)\\(([^)]*)\\)`,
  'u',
);

export interface OfficialCall {
  /** Lower-cased; with an `_`, only the segment after the first `_` (`Trains_findtrains` → `findtrains`). */
  name: string;
  returns: string[];
  /** `#key` (lower-cased) → raw value, quotes kept; insertion order as in Python's dict. */
  args: Map<string, string>;
}

/** `extract_name_params` ("Call parsing"); undefined when the string has no `ret = name(...)`. */
export function extractNameParams(text: string): OfficialCall | undefined {
  const m = CALL_RE.exec(text);
  if (!m) return undefined;
  let name = m[2]!.toLowerCase();
  if (name.includes('_')) name = name.split('_')[1]!;
  const returns = text
    .split('=')[0]!
    .split(',')
    .map((p) => pyStrip(p));
  const args = new Map<string, string>();
  const keyOf = (raw: string): string => {
    const k = pyStrip(raw);
    return k.startsWith('#') ? k.toLowerCase() : `#${k.toLowerCase()}`;
  };
  // Python leaks `key` from the last successful `key, value = arg.split("=")` into the next pieces.
  let key: string | undefined;
  for (const piece of m[3]!.split(', ')) {
    if (piece.includes('=')) {
      const parts = piece.split('=');
      if (parts.length !== 2) continue; // ValueError in Python → piece skipped
      key = parts[0]!;
      args.set(keyOf(key), pyStrip(parts[1]!));
    } else {
      if (key === undefined) continue; // NameError in Python → piece skipped
      args.set(keyOf(key), '');
    }
  }
  return { name, returns, args };
}
