import { fnv1a32, mulberry32, sampleWithoutReplacement } from '../../shared/index.js';
import { actionClass } from './actions.js';
import type { Json } from './json-value.js';
import { actionParts } from './length.js';

/** The candidate API list of one shortcut (docs/shortcutsbench.md §7) and the seed that drew it. */
export interface CandidateApis {
  /** Gold-first, as stored in the result record's `api_names`. */
  apiNames: string[];
  /** Sorted ascending: the order of the prompt. */
  promptOrder: string[];
  seed: number;
}

/** Distinct EVALUATED ids in first-appearance order (upstream: Python set order, arbitrary). */
function goldApiIds(actions: readonly Json[]): string[] {
  const out = new Set<string>();
  for (const a of actions) {
    const { id } = actionParts(a);
    if (id !== undefined && actionClass(id) === 'evaluated') out.add(id);
  }
  return [...out];
}

/** The seed of one shortcut: the run seed mixed with the shortcut's URL, so each draw is reproducible alone. */
export function candidateSeed(runSeed: number, url: string): number {
  return fnv1a32(`${runSeed >>> 0}:${url}`);
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * gold + `max(min(|gold|·m, 20 − |gold|), 0)` distractors drawn without replacement from every
 * API of all_api2info (sorted, minus gold), m uniform in [3, 5]; mulberry32 seeded by `seed`.
 */
export function candidateApis(
  actions: readonly Json[],
  allApiIds: readonly string[],
  seed: number,
): CandidateApis {
  const gold = goldApiIds(actions);
  const rand = mulberry32(seed);
  const m = 3 + Math.floor(rand() * 3);
  const extraCount = Math.max(Math.min(gold.length * m, 20 - gold.length), 0);
  const goldSet = new Set(gold);
  const pool = [...allApiIds].sort(byCodeUnit).filter((id) => !goldSet.has(id));
  const extra = sampleWithoutReplacement(pool, extraCount, rand);
  const apiNames = [...gold, ...extra];
  return { apiNames, promptOrder: [...apiNames].sort(byCodeUnit), seed };
}
