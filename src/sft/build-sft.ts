import pLimit from 'p-limit';
import { APPBENCH_CURRENT_DATE } from '../benchmarks/appbench/index.js';
import { type Catalog, indexCatalog } from '../catalog/index.js';
import { type Plan, printMetabenchPlan, validatePlan } from '../plan/index.js';
import { type GoldTask, printAppPrefixedPlan } from '../retrieval/index.js';
import { ApiaryError, mulberry32, sampleWithoutReplacement, shuffled } from '../shared/index.js';
import { type ParaphraseOptions, paraphraseInstruction } from './paraphrase.js';
import type { SftChat } from './sft-format.js';
import { renderAppBenchSystemPrompt, renderSftSystemPrompt, type SftPromptStyle } from './system-prompt.js';

/** A gold task with where it came from (e.g. the AppBench category). */
export interface SftSource extends GoldTask {
  category?: string;
}

/**
 * How single-step (one call) and multi-step (two or more calls) samples are balanced:
 * - `upsample` (default): the smaller group is repeated (cycling through its shuffled order,
 *   each repeat with fresh augmentation draws) until both groups have the larger group's size;
 * - `downsample`: both groups are cut to the smaller group's size (after shuffling);
 * - `none`: every valid task once.
 * When one group is empty no balancing is possible and every task is used once.
 * Samples then alternate single, multi, single, … (the remainder of the larger group last).
 */
export const SFT_BALANCES = ['upsample', 'downsample', 'none'] as const;
export type SftBalance = (typeof SFT_BALANCES)[number];

export interface BuildSftOptions {
  /** Seed of the PRNG (mulberry32); same seed and inputs → same samples. Default 0. */
  seed?: number;
  /** Irrelevant APIs added to each prompt's API list (drawn from the catalog's other APIs). Default 5. */
  distractors?: number;
  /** Shuffle the prompt's API list (default true); false keeps catalog order. */
  shuffleApis?: boolean;
  balance?: SftBalance;
  /** At most this many samples (taken from the balanced, interleaved order). */
  limit?: number;
  /** Prompt and reply style (default `appbench`: the agents' prompt, `App_api` call names). */
  style?: SftPromptStyle;
  /** Current date in the system prompt (default 2019-03-01 for `appbench`; none for `compact`). */
  currentDate?: string;
  /** `compact` style: rules text above the API listing (default SFT_PLANNER_RULES). */
  rules?: string;
  /** Rewrite each sample's instruction through a model (TPTU-v2's instruction augmentation). */
  paraphrase?: ParaphraseOptions;
  /** Paraphrase calls in flight at once (default 1); results keep sample order. */
  concurrency?: number;
  /** Called after each paraphrase call (done, total). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Stops paraphrasing: no new call starts, calls in flight are aborted, and the build returns only
   * the samples whose paraphrase had finished (`stats.interrupted` counts the ones left out).
   */
  signal?: AbortSignal;
}

export interface SftSample extends SftChat {
  /** Source task id, with `#r` appended for the r-th repeat of an upsampled task. */
  id: string;
  sourceId: string;
  category?: string;
  steps: number;
  apps: string[];
  /** Catalog ids of the APIs listed in the prompt, in listing order. */
  listedApis: string[];
  distractors: string[];
  paraphrase?: { status: 'ok' | 'rejected' | 'failed'; reason?: string };
}

export interface SftStats {
  /** Tasks given. */
  tasks: number;
  /** Tasks left out because their gold plan does not validate against the catalog. */
  skipped: Array<{ id: string; reason: string }>;
  samples: number;
  single: number;
  multi: number;
  /** Samples that are repeats of an earlier sample's task (upsampling). */
  repeats: number;
  /** Samples using each app (a sample counts once per app), sorted by app id. */
  perApp: Record<string, number>;
  /** Samples per source category, sorted by category. */
  perCategory: Record<string, number>;
  balance: SftBalance;
  style: SftPromptStyle;
  /** False when one of the two groups was empty (nothing to balance). */
  balanced: boolean;
  paraphrase?: { ok: number; rejected: number; failed: number };
  /** Set when `signal` stopped the paraphrasing: samples built in full, and left out unfinished. */
  interrupted?: { kept: number; dropped: number };
}

export interface SftBuild {
  samples: SftSample[];
  stats: SftStats;
}

interface Slot {
  task: SftSource;
  repeat: number;
}

function cycle(tasks: readonly SftSource[], n: number): Slot[] {
  const out: Slot[] = [];
  for (let i = 0; i < n; i++)
    out.push({ task: tasks[i % tasks.length]!, repeat: Math.floor(i / tasks.length) });
  return out;
}

function interleave(a: readonly Slot[], b: readonly Slot[]): Slot[] {
  const out: Slot[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i]!);
    if (i < b.length) out.push(b[i]!);
  }
  return out;
}

function sortedRecord(counts: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function stringLiterals(plan: Plan): string[] {
  const out: string[] = [];
  for (const s of plan.steps)
    for (const v of Object.values(s.args))
      if (v.kind === 'literal' && typeof v.value === 'string' && !out.includes(v.value)) out.push(v.value);
  return out;
}

/**
 * Builds SFT conversations from gold plans with TPTU-v2's augmentations, deterministically for
 * a seed. Random draws happen in this order: shuffle the single-step group, shuffle the
 * multi-step group, then per sample (in output order) draw its distractors and shuffle its API
 * list. Paraphrasing uses no randomness of ours, so it never changes the other choices.
 */
export async function buildSftSamples(
  tasks: readonly SftSource[],
  catalog: Catalog,
  opts: BuildSftOptions = {},
): Promise<SftBuild> {
  const index = indexCatalog(catalog);
  const balance = opts.balance ?? 'upsample';
  const nDistractors = opts.distractors ?? 5;
  if (!Number.isInteger(nDistractors) || nDistractors < 0)
    throw new ApiaryError('USAGE', `distractors must be a non-negative integer (got ${nDistractors})`);
  if (opts.limit !== undefined && (!Number.isInteger(opts.limit) || opts.limit < 0))
    throw new ApiaryError('USAGE', `limit must be a non-negative integer (got ${opts.limit})`);
  const rand = mulberry32(opts.seed ?? 0);
  const style = opts.style ?? 'appbench';
  if (style !== 'appbench' && style !== 'compact')
    throw new ApiaryError('USAGE', `unknown prompt style "${String(style)}" (appbench | compact)`);
  const systemPrompt = (apiIds: readonly string[]) =>
    style === 'appbench'
      ? renderAppBenchSystemPrompt(catalog, apiIds, opts.currentDate ?? APPBENCH_CURRENT_DATE)
      : renderSftSystemPrompt(catalog, apiIds, { currentDate: opts.currentDate, rules: opts.rules });
  const printReply = style === 'appbench' ? printAppPrefixedPlan : printMetabenchPlan;

  const skipped: SftStats['skipped'] = [];
  const single: SftSource[] = [];
  const multi: SftSource[] = [];
  for (const t of tasks) {
    if (t.plan.steps.length === 0) {
      skipped.push({ id: t.id, reason: 'empty plan' });
      continue;
    }
    const issues = validatePlan(t.plan, index);
    if (issues.length) {
      const i = issues[0]!;
      skipped.push({
        id: t.id,
        reason: `${i.step ?? '-'}${i.field ? `.${i.field}` : ''}: ${i.code}: ${i.message}`,
      });
      continue;
    }
    (t.plan.steps.length === 1 ? single : multi).push(t);
  }

  const s = shuffled(single, rand);
  const m = shuffled(multi, rand);
  const balanced = balance !== 'none' && s.length > 0 && m.length > 0;
  let slots: Slot[];
  if (!balanced) slots = interleave(cycle(s, s.length), cycle(m, m.length));
  else {
    const n = balance === 'upsample' ? Math.max(s.length, m.length) : Math.min(s.length, m.length);
    slots = interleave(cycle(s, n), cycle(m, n));
  }
  if (opts.limit !== undefined) slots = slots.slice(0, opts.limit);

  let samples: SftSample[] = slots.map(({ task, repeat }) => {
    const gold = [...new Set(task.plan.steps.map((st) => index.api(st.app, st.api)!.id))];
    const pool = catalog.apis.map((a) => a.id).filter((id) => !gold.includes(id));
    const distractors = sampleWithoutReplacement(pool, nDistractors, rand);
    const listed = [...gold, ...distractors];
    const listedApis =
      opts.shuffleApis === false
        ? catalog.apis.map((a) => a.id).filter((id) => listed.includes(id))
        : shuffled(listed, rand);
    const sample: SftSample = {
      id: repeat > 0 ? `${task.id}#${repeat}` : task.id,
      sourceId: task.id,
      steps: task.plan.steps.length,
      apps: [...new Set(task.plan.steps.map((st) => st.app))],
      listedApis,
      distractors,
      system: systemPrompt(listedApis),
      user: task.instruction,
      assistant: printReply(task.plan),
    };
    if (task.category !== undefined) sample.category = task.category;
    return sample;
  });

  let paraphraseStats: SftStats['paraphrase'];
  if (opts.paraphrase) {
    paraphraseStats = { ok: 0, rejected: 0, failed: 0 };
    const counts = paraphraseStats;
    const limit = pLimit(Math.max(1, opts.concurrency ?? 1));
    const paraphrase = opts.signal ? { ...opts.paraphrase, signal: opts.signal } : opts.paraphrase;
    let done = 0;
    await Promise.all(
      samples.map((sample, i) =>
        limit(async () => {
          if (opts.signal?.aborted) return;
          const task = slots[i]!.task;
          const r = await paraphraseInstruction(task.instruction, stringLiterals(task.plan), paraphrase);
          if (opts.signal?.aborted) return; // aborted mid-call: not a real failure, not done
          sample.user = r.text;
          sample.paraphrase =
            r.reason === undefined ? { status: r.status } : { status: r.status, reason: r.reason };
          counts[r.status]++;
          opts.onProgress?.(++done, samples.length);
        }),
      ),
    );
  }

  let interrupted: SftStats['interrupted'];
  if (opts.signal?.aborted && opts.paraphrase) {
    const total = samples.length;
    samples = samples.filter((x) => x.paraphrase !== undefined);
    interrupted = { kept: samples.length, dropped: total - samples.length };
  }

  const perApp = new Map<string, number>();
  const perCategory = new Map<string, number>();
  for (const x of samples) {
    for (const app of x.apps) perApp.set(app, (perApp.get(app) ?? 0) + 1);
    if (x.category !== undefined) perCategory.set(x.category, (perCategory.get(x.category) ?? 0) + 1);
  }
  const stats: SftStats = {
    tasks: tasks.length,
    skipped,
    samples: samples.length,
    single: samples.filter((x) => x.steps === 1).length,
    multi: samples.filter((x) => x.steps > 1).length,
    repeats: slots.filter((x) => x.repeat > 0).length,
    perApp: sortedRecord(perApp),
    perCategory: sortedRecord(perCategory),
    balance,
    style,
    balanced,
  };
  if (paraphraseStats) stats.paraphrase = paraphraseStats;
  if (interrupted) stats.interrupted = interrupted;
  return { samples, stats };
}
