import type { Catalog } from '../../../catalog/index.js';
import { analyzePlan, type Plan } from '../../../plan/index.js';
import { stableJson } from '../../../shared/index.js';
import { appBenchGoldPlan } from '../gold-plan.js';
import type { AppBenchRecord } from '../record.js';
import { correctedSampleCounts } from '../score-corrected.js';
import { alignCalls, callKey, normArgName } from '../score-corrected-align.js';
import {
  dialoguePath,
  type PathCall,
  pathRecord,
  type ReferenceRule,
  type RepeatRule,
} from './planning-path.js';
import type { SgdSourceDialogue } from './sgd-source.js';

/**
 * How the builder's plan for a released record's source dialogue differs from the released gold
 * plan (docs/appbench.md, "Building your own data"). A record may show several kinds.
 */
export type ReleaseDifference =
  /** No dialogue of the local SGD has the record's calls (its file is not in the copy). */
  | 'source not found'
  /** The builder makes no path of that dialogue (another service in it, a call with no row, …). */
  | 'no path'
  /** Another multiset of App.API calls (the builder keeps the last of repeated calls; the release also drops or keeps others). */
  | 'other calls'
  /** An argument the release writes as a reference, the builder as a literal (the release refers by name, even to another value). */
  | 'reference → literal'
  /** An argument the builder writes as a reference, the release as a literal. */
  | 'literal → reference'
  /** A reference to another call, or a literal of another value. */
  | 'other value'
  /** Another set of argument names in an aligned call. */
  | 'other arguments';

export interface BuildRules {
  refs: ReferenceRule;
  repeats: RepeatRule;
}

export interface ReleaseRecord {
  id: string;
  category: string;
  record: AppBenchRecord;
}

export interface ReleaseRecordComparison {
  id: string;
  category: string;
  /** The SGD dialogue(s) the record's calls come from, in its call order. */
  sources: string[];
  success: boolean;
  differences: ReleaseDifference[];
  /** Why the builder makes no path, for `no path`. */
  detail?: string;
  /** [parallel, sequential] scale of the gold plan and of the built one (MetaBench's Para. and Seq.). */
  scale?: { gold: [number, number]; built: [number, number] };
}

const callSignature = (api: string, args: Record<string, unknown>) =>
  `${api}|${stableJson(Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)])))}`;

/** Every SGD call by its AppBench API name and arguments → the dialogues that make it. */
function callIndex(dialogues: readonly SgdSourceDialogue[]): Map<string, SgdSourceDialogue[]> {
  const index = new Map<string, SgdSourceDialogue[]>();
  for (const d of dialogues) {
    for (const c of d.calls.map((call) => ({ api: apiNameOf(call.service, call.intent), call }))) {
      const key = callSignature(c.api, c.call.params);
      const list = index.get(key) ?? [];
      if (!list.includes(d)) list.push(d);
      index.set(key, list);
    }
  }
  return index;
}

// Movies_3's FindMovies is AppBench's reviewmovies; every other API is the lower-cased intent
const apiNameOf = (service: string, intent: string) =>
  service === 'Movies_3' && intent === 'FindMovies' ? 'reviewmovies' : intent.toLowerCase();

/**
 * The dialogue(s) a released record came from, by its literal values: one dialogue making all its
 * calls (SS, SM, MM), else one dialogue per call (the released MS records join single-call
 * dialogues). Undefined when a call is in no dialogue of the local copy.
 */
function findReleaseSource(
  record: AppBenchRecord,
  index: ReadonlyMap<string, SgdSourceDialogue[]>,
): SgdSourceDialogue[] | undefined {
  const perCall = record.output.used_api.map((call) => {
    const [api, args] = Object.entries(call)[0]!;
    return index.get(callSignature(api, args)) ?? [];
  });
  if (perCall.some((l) => !l.length)) return undefined;
  const common = perCall.reduce((acc, l) => acc.filter((d) => l.includes(d)));
  if (common.length) return [common[0]!];
  const parts: SgdSourceDialogue[] = [];
  for (const l of perCall) if (!parts.includes(l[0]!)) parts.push(l[0]!);
  return parts;
}

/** The builder's record for the source dialogues, or why there is none. */
function builtFrom(
  sources: readonly SgdSourceDialogue[],
  catalog: Catalog,
  rules: BuildRules,
): AppBenchRecord | string {
  const calls: PathCall[] = [];
  for (const [part, d] of sources.entries()) {
    const path = dialoguePath(d, { catalog, repeats: rules.repeats, part });
    if ('rejected' in path) return `${d.id}: ${path.rejected} (${path.detail})`;
    calls.push(...path.calls);
  }
  return pathRecord(calls, catalog, rules.refs);
}

/** The kinds of difference between two plans, on calls aligned as the corrected scorer aligns them. */
function differencesOf(gold: Plan, built: Plan): ReleaseDifference[] {
  const kinds = new Set<ReleaseDifference>();
  const key = (p: Plan) => p.steps.map(callKey).sort().join(' ');
  if (key(gold) !== key(built)) kinds.add('other calls');
  const { pairs, predToGold } = alignCalls(gold.steps, built.steps);
  for (const [gi, bi] of pairs) {
    const g = gold.steps[gi]!;
    const b = new Map(Object.entries(built.steps[bi]!.args).map(([k, v]) => [normArgName(k), v]));
    const gArgs = new Map(Object.entries(g.args).map(([k, v]) => [normArgName(k), v]));
    if (gArgs.size !== b.size || [...gArgs.keys()].some((k) => !b.has(k))) kinds.add('other arguments');
    for (const [k, gv] of gArgs) {
      const bv = b.get(k);
      if (!bv) continue;
      if (gv.kind === 'ref' && bv.kind === 'literal') kinds.add('reference → literal');
      else if (gv.kind === 'literal' && bv.kind === 'ref') kinds.add('literal → reference');
      else if (gv.kind === 'literal' && bv.kind === 'literal') {
        if (String(gv.value) !== String(bv.value)) kinds.add('other value');
      } else if (gv.kind === 'ref' && bv.kind === 'ref') {
        if (gv.output !== bv.output || (bv.step !== null && predToGold.get(bv.step) !== gv.step))
          kinds.add('other value');
      }
    }
  }
  return [...kinds];
}

/**
 * Item 2 of issue 29: for each released record, its source dialogue(s), the builder's plan for
 * them and whether it equals the gold plan under the corrected scorer's success (same calls, same
 * arguments, same values, every reference to the aligned producer), with the kinds of difference.
 */
export function compareWithRelease(
  records: readonly ReleaseRecord[],
  dialogues: readonly SgdSourceDialogue[],
  catalog: Catalog,
  rules: BuildRules,
): ReleaseRecordComparison[] {
  const index = callIndex(dialogues);
  return records.map(({ id, category, record }) => {
    const sources = findReleaseSource(record, index);
    if (!sources) return { id, category, sources: [], success: false, differences: ['source not found'] };
    const ids = sources.map((d) => d.id);
    const built = builtFrom(sources, catalog, rules);
    if (typeof built === 'string')
      return { id, category, sources: ids, success: false, differences: ['no path'], detail: built };
    const gold = appBenchGoldPlan(record, catalog).plan;
    const plan = appBenchGoldPlan(built, catalog).plan;
    const success = correctedSampleCounts(gold, plan).success === 1;
    const scaleOf = (p: Plan): [number, number] => {
      const a = analyzePlan(p);
      return [a.parallelScale, a.sequentialScale];
    };
    return {
      id,
      category,
      sources: ids,
      success,
      differences: success ? [] : differencesOf(gold, plan),
      scale: { gold: scaleOf(gold), built: scaleOf(plan) },
    };
  });
}
