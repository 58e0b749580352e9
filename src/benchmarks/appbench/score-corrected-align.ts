import type { ArgValue, Step } from '../../plan/index.js';

/**
 * Normalisation used by the corrected scorer (no substring matching, no alias map):
 * - App and API names: lower-cased; an API written `App_api` or `App.api` loses the prefix
 *   when it names the call's own App.
 * - Argument names: lower-cased, without a leading `#`.
 * - Literals: Unicode NFC, trimmed, inner whitespace runs collapsed to one space, lower-cased,
 *   one pair of wrapping quotes (`'` or `"`) removed; numbers compare by value (`3` = `'3'` =
 *   `'3.0'`); booleans as `true`/`false` (`True` = `'True'`); null as `none`.
 * - References: equal when they point at the aligned producer step and name the same output.
 */
export function normName(s: string): string {
  return s.trim().toLowerCase();
}

export function normApi(app: string, api: string): string {
  const a = normName(app);
  const n = normName(api);
  for (const sep of ['_', '.'])
    if (n.startsWith(a + sep) && n.length > a.length + 1) return n.slice(a.length + 1);
  return n;
}

export function normArgName(s: string): string {
  return s.trim().replace(/^#/, '').toLowerCase();
}

function normLiteral(v: string | number | boolean | null): string {
  if (v === null) return 'none';
  let s = String(v).normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
  const quoted = /^(['"])(.*)\1$/s.exec(s);
  if (quoted) s = quoted[2]!.trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) s = String(Number(s));
  return s;
}

/** Identity of a call for matching: `app.api`, normalised. */
export function callKey(step: Step): string {
  return `${normName(step.app)}.${normApi(step.app, step.api)}`;
}

/** Whether a predicted value equals the gold one, given the alignment (pred step id → gold step id). */
export function valuesMatch(
  gold: ArgValue,
  pred: ArgValue,
  predToGold: ReadonlyMap<string, string>,
): boolean {
  switch (gold.kind) {
    case 'literal':
      return pred.kind === 'literal' && normLiteral(pred.value) === normLiteral(gold.value);
    case 'ref':
      if (pred.kind !== 'ref' || normName(pred.output) !== normName(gold.output)) return false;
      if (gold.step === null) return pred.step === null;
      return pred.step !== null && predToGold.get(pred.step) === gold.step;
    case 'ask':
      return pred.kind === 'ask';
    case 'system':
      return pred.kind === 'system' && pred.source === gold.source;
  }
}

function normArgs(step: Step): Map<string, ArgValue> {
  return new Map(Object.entries(step.args).map(([k, v]) => [normArgName(k), v]));
}

function hitsOf(
  gold: ReadonlyMap<string, ArgValue>,
  pred: ReadonlyMap<string, ArgValue>,
  predToGold: ReadonlyMap<string, string>,
): number {
  let hits = 0;
  for (const [k, gv] of gold) {
    const pv = pred.get(k);
    if (pv && valuesMatch(gv, pv, predToGold)) hits++;
  }
  return hits;
}

export interface Alignment {
  /** [gold index, pred index] pairs of calls with the same App and API. */
  pairs: Array<[number, number]>;
  predToGold: Map<string, string>;
}

/** Above this many joint candidates, each group is aligned by position instead. */
const MAX_CANDIDATES = 20_000;

/**
 * Aligns predicted to gold calls: only calls with the same App and API can pair, each group
 * pairs as many as possible, and among those matchings the one with the most equal arguments
 * wins (references judged under that very matching); ties keep written order. Independent
 * calls may therefore come in any order.
 */
export function alignCalls(gold: readonly Step[], pred: readonly Step[]): Alignment {
  const groups = new Map<string, { g: number[]; p: number[] }>();
  gold.forEach((s, i) => {
    const k = callKey(s);
    const e = groups.get(k) ?? { g: [], p: [] };
    e.g.push(i);
    groups.set(k, e);
  });
  pred.forEach((s, i) => {
    groups.get(callKey(s))?.p.push(i);
  });
  const active = [...groups.values()].filter((e) => e.g.length && e.p.length);

  // Candidate matchings of one group: each gold index gets a distinct pred index or none, with
  // exactly min(|g|, |p|) pairs; the first candidate is the positional one.
  const groupCandidates = (e: { g: number[]; p: number[] }): Array<Array<[number, number]>> => {
    const want = Math.min(e.g.length, e.p.length);
    const out: Array<Array<[number, number]>> = [];
    const used = new Set<number>();
    const rec = (gi: number, acc: Array<[number, number]>) => {
      if (out.length > MAX_CANDIDATES) return;
      if (gi === e.g.length) {
        if (acc.length === want) out.push([...acc]);
        return;
      }
      for (const pi of e.p) {
        if (used.has(pi)) continue;
        used.add(pi);
        acc.push([e.g[gi]!, pi]);
        rec(gi + 1, acc);
        acc.pop();
        used.delete(pi);
      }
      if (e.g.length - gi - 1 >= want - acc.length) rec(gi + 1, acc);
    };
    rec(0, []);
    return out;
  };
  const perGroup = active.map(groupCandidates);
  const total = perGroup.reduce((n, c) => n * c.length, 1);
  const build = (pairs: Array<[number, number]>): Alignment => ({
    pairs,
    predToGold: new Map(pairs.map(([g, p]) => [pred[p]!.id, gold[g]!.id])),
  });
  // argument names normalised once per step, not once per candidate matching
  const goldArgs = gold.map(normArgs);
  const predArgs = pred.map(normArgs);
  const score = (a: Alignment) =>
    a.pairs.reduce((n, [g, p]) => n + hitsOf(goldArgs[g]!, predArgs[p]!, a.predToGold), 0);
  if (total > MAX_CANDIDATES) return build(perGroup.flatMap((c) => c[0] ?? []));

  let best: Alignment | undefined;
  let bestScore = -1;
  const rec = (i: number, acc: Array<[number, number]>) => {
    if (i === perGroup.length) {
      const a = build([...acc]);
      const s = score(a);
      if (s > bestScore) {
        best = a;
        bestScore = s;
      }
      return;
    }
    for (const cand of perGroup[i]!) rec(i + 1, [...acc, ...cand]);
  };
  rec(0, []);
  const result = best ?? build([]);
  result.pairs.sort((a, b) => a[0] - b[0]);
  return result;
}
