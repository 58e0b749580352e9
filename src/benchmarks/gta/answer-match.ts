import { isPyObject, type PyJson, pyGet } from '../../shared/index.js';

/**
 * GTA's answer matching (docs/gta.md, "Official scoring: answer matching"). Objective answers: whitelist groups of aliases, each
 * group must match as a whole word, no blacklist alias may match, with Python `re` semantics
 * (Unicode `\b`, IGNORECASE). Subjective answers: clipped cosine similarity of sentence
 * embeddings, through an injected embedder.
 */

/** Python's Unicode word boundary; JS `\b` is ASCII-only even under the `u` flag. */
const W = '[\\p{L}\\p{N}_]';
const B = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;

/** Escapes regex syntax characters (Python `re.escape`, restricted to what a `u`-mode JS regex accepts). */
const escapeRegex = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/** Python `re.search(r'\b(?:a1|a2|…)\b', text, re.IGNORECASE)`. */
export function matchesWholeWord(text: string, aliases: readonly string[]): boolean {
  return new RegExp(`${B}(?:${aliases.map(escapeRegex).join('|')})${B}`, 'iu').test(text);
}

export interface GtaWhitelist {
  whitelist: string[][];
  blacklist: string[][] | null;
}

/** Objective answer check: every whitelist group found and (with a blacklist) no blacklist alias. */
export function isCorrect(pred: string, ref: GtaWhitelist): boolean {
  const count = ref.whitelist.filter((aliases) => matchesWholeWord(pred, aliases)).length;
  if (count !== ref.whitelist.length) return false;
  if (!ref.blacklist || ref.blacklist.length === 0) return true;
  return !matchesWholeWord(pred, ref.blacklist.flat());
}

/** Turns the JSON `gt_answer` into the whitelist shape (the loader checked it). */
export function whitelistOf(ref: PyJson): GtaWhitelist {
  const groups = (v: PyJson | undefined) => (Array.isArray(v) ? v.map((g) => (g as string[]).slice()) : null);
  return { whitelist: groups(pyGet(ref, 'whitelist')) ?? [], blacklist: groups(pyGet(ref, 'blacklist')) };
}

/** Sentence embeddings (official: `all-mpnet-base-v2`, mean pooled, L2-normalised). */
export interface GtaEmbedder {
  embed(texts: readonly string[]): Promise<number[][]>;
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  // torch's cos_sim normalises with a small epsilon: a zero vector scores 0
  return na === 0 || nb === 0 ? 0 : dot / (Math.sqrt(na) * Math.sqrt(nb));
}

/** `max(0, max_r cos(E(pred), E(r)))` over the references (each clipped at 0). */
export async function simScore(
  pred: string,
  refs: readonly string[],
  embedder: GtaEmbedder,
): Promise<number> {
  const [p, ...rs] = await embedder.embed([pred, ...refs]);
  let best = 0;
  for (const r of rs) best = Math.max(best, cosine(p!, r));
  return best;
}

/** What kind of reference a record has: objective (object), subjective (list), none (falsy). */
export function referenceKind(ref: PyJson): 'objective' | 'subjective' | 'none' | 'other' {
  if (isPyObject(ref)) return ref.entries.size > 0 ? 'objective' : 'none';
  if (Array.isArray(ref)) return ref.length > 0 ? 'subjective' : 'none';
  if (ref === null || ref === false || ref === '') return 'none';
  return 'other';
}
