import { InputInvalidError, type InputLocation } from './errors.js';

/**
 * Deepest nesting of arrays and objects accepted in JSON from outside (results and prediction
 * files, model replies, tool arguments). `JSON.parse` itself takes any depth, but what walks the
 * value afterwards recurses (serialising, hashing, scoring, blob references) and a 300,000-deep
 * record overflowed the stack (INTERNAL). Python's json stops at its recursion limit, 1000, so
 * nothing Python reads (or the gold data holds) is refused.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * The first offset where `text` nests deeper than `limit`, or -1: one linear pass that counts `[`
 * and `{` outside strings. It does not validate (the parser does that); it only bounds the depth
 * any parser or walker will meet.
 */
export function jsonDepthExceededAt(text: string, limit = MAX_JSON_DEPTH): number {
  // a text with no more opening brackets than the limit cannot exceed it: most texts skip the scan
  if (text.length <= limit || !moreOpeningBracketsThan(text, limit)) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > limit) return i;
    } else if (c === 93 || c === 125) depth--;
  }
  return -1;
}

/** Whether `text` holds more than `limit` of `[` and `{` together (native searches, no per-character loop). */
function moreOpeningBracketsThan(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ['[', '{']) {
    for (let i = text.indexOf(bracket); i >= 0; i = text.indexOf(bracket, i + 1))
      if (++count > limit) return true;
  }
  return false;
}

/**
 * Whether a parsed value (one that did not come through our parsers: an MCP request's arguments,
 * parsed by the SDK) nests arrays and objects deeper than `limit`. Iterative, so it cannot
 * overflow the stack itself; it stops at the first path that is too deep.
 */
export function valueDepthExceeds(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  const seen = new Set<object>();
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object' || seen.has(v)) continue;
    if (depth + 1 > limit) return true;
    seen.add(v);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Throws INPUT_INVALID at `loc` when `text` nests deeper than `limit` (see {@link MAX_JSON_DEPTH}). */
export function checkJsonDepth(text: string, loc: InputLocation, limit = MAX_JSON_DEPTH): void {
  const at = jsonDepthExceededAt(text, limit);
  if (at >= 0)
    throw new InputInvalidError(
      loc,
      `JSON nested deeper than ${limit} levels at offset ${at} (the limit for JSON input)`,
    );
}

/** `JSON.parse` after {@link checkJsonDepth}: syntax errors still throw SyntaxError, for callers that handle them. */
export function parseJsonWithinDepth(text: string, loc: InputLocation, limit = MAX_JSON_DEPTH): unknown {
  checkJsonDepth(text, loc, limit);
  return JSON.parse(text);
}
