import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LanguageModel } from 'ai';
import Database from 'better-sqlite3';
import type { AppHandler } from '../../../apps/index.js';
import type { Catalog } from '../../../catalog/index.js';
import { analyzePlan } from '../../../plan/index.js';
import { ApiaryError, mulberry32, shuffled, stableJson, writeFileAtomic } from '../../../shared/index.js';
import { createSgdApps } from '../apps/sgd-apps.js';
import { buildSgdDatabase } from '../apps/sgd-database.js';
import {
  APPBENCH_CATEGORIES,
  type AppBenchCategory,
  appBenchCategory,
  appBenchFileName,
} from '../categories.js';
import { checkAppBenchGold } from '../gold-check.js';
import { appBenchGoldPlan } from '../gold-plan.js';
import type { AppBenchRecord } from '../record.js';
import { scoreInstruction, templatedInstruction, writeInstruction } from './instructions.js';
import {
  dialoguePath,
  type PathCall,
  type PathOptions,
  type PathRejection,
  pathRecord,
  type ReferenceRule,
  type RepeatRule,
} from './planning-path.js';
import { readSgdFiles, type SgdSourceDialogue, sgdDialoguesOf } from './sgd-source.js';

/** One sample the builder may make: a dialogue, or (MS) several single-call dialogues of different Apps. */
interface BuildCandidate {
  /** `test:3_00126`, or the part ids joined with `+` for a composed MS sample. */
  id: string;
  category: AppBenchCategory;
  dialogues: SgdSourceDialogue[];
  calls: PathCall[];
}

/** How often a composed MS sample takes three Apps instead of two (the released MS dev set: 5 in 50). */
const THREE_APP_SHARE = 0.1;

/**
 * Every sample the dialogues give, by category, in a seeded order. SS, SM and MM samples are whole
 * dialogues; MS samples are dialogues whose Apps each make one call, plus compositions of 2 (or 3)
 * single-call dialogues of different Apps, as the released MS records are (the paper does not say;
 * docs/appbench.md, "Building your own data").
 */
function buildCandidates(
  dialogues: readonly SgdSourceDialogue[],
  seed: number,
  path: Omit<PathOptions, 'part'>,
): { candidates: Record<AppBenchCategory, BuildCandidate[]>; rejected: Record<PathRejection, number> } {
  const rejected: Record<PathRejection, number> = {
    'no-call': 0,
    'other-service': 0,
    'no-result': 0,
    'unparseable-value': 0,
    'underscore-api': 0,
  };
  const byCategory: Record<AppBenchCategory, BuildCandidate[]> = { ss: [], sm: [], ms: [], mm: [] };
  for (const d of dialogues) {
    const found = dialoguePath(d, path);
    if ('rejected' in found) {
      rejected[found.rejected]++;
      continue;
    }
    const category = appBenchCategory(found.calls.map((c) => c.app));
    byCategory[category].push({ id: d.id, category, dialogues: [d], calls: found.calls });
  }
  const rand = mulberry32(seed);
  const pool = shuffled(byCategory.ss, rand);
  while (pool.length) {
    const size = rand() < THREE_APP_SHARE ? 3 : 2;
    const group = [pool.shift()!];
    for (let i = 0; i < pool.length && group.length < size; ) {
      if (group.some((g) => g.calls[0]!.app === pool[i]!.calls[0]!.app)) i++;
      else group.push(...pool.splice(i, 1));
    }
    if (group.length < size) break;
    byCategory.ms.push({
      id: group.map((g) => g.id).join('+'),
      category: 'ms',
      dialogues: group.flatMap((g) => g.dialogues),
      calls: group.flatMap((g, part) => g.calls.map((c) => ({ ...c, part }))),
    });
  }
  const candidates = Object.fromEntries(
    APPBENCH_CATEGORIES.map((c, i) => [c, shuffled(byCategory[c], mulberry32(seed + i + 1))]),
  ) as Record<AppBenchCategory, BuildCandidate[]>;
  return { candidates, rejected };
}

/** One line of `build-state.jsonl`: a candidate done, kept or not (a re-run skips it). */
interface StateLine {
  id: string;
  category: AppBenchCategory;
  kept: boolean;
  reason?: string;
  instruction: 'model' | 'templated';
  score?: number;
  parallel_scale: number;
  sequential_scale: number;
  record: AppBenchRecord;
}

export interface BuildAppBenchOptions {
  sgdDir: string;
  out: string;
  catalog: Catalog;
  seed: number;
  /** At most this many kept records per category (default: every candidate). */
  limit?: number;
  /** Keep a record whose Table 7 score is at least this (model instructions only). */
  threshold: number;
  refs: ReferenceRule;
  repeats: RepeatRule;
  model?: { model: LanguageModel; id: string };
  signal?: AbortSignal;
  onProgress?: (p: { done: number; total: number; skipped: number; failed: number }) => void;
}

export interface BuildAppBenchReport {
  out: string;
  instructions: 'model' | 'templated';
  perCategory: Record<AppBenchCategory, { candidates: number; kept: number; dropped: number }>;
  /** Dialogues that give no planning path, by reason. */
  rejectedDialogues: Record<PathRejection, number>;
  /** Candidates done by an earlier run of the same build. */
  resumed: number;
  /** Model calls that failed (their candidates are tried again by the next run). */
  failed: number;
  interrupted: boolean;
}

const STATE_FILE = 'build-state.jsonl';
const MAX_FAILURES_IN_A_ROW = 5;
const SETTINGS_FILE = 'build-settings.json';

/** The settings a resumed build must share with the first run (same candidates, same judgement). */
function settingsOf(o: BuildAppBenchOptions) {
  return {
    sgd: resolve(o.sgdDir),
    seed: o.seed,
    refs: o.refs,
    repeats: o.repeats,
    threshold: o.model ? o.threshold : null,
    model: o.model?.id ?? null,
  };
}

function readState(out: string): Map<string, StateLine> {
  const path = join(out, STATE_FILE);
  const done = new Map<string, StateLine>();
  if (!existsSync(path)) return done;
  // a run killed mid-write leaves at most one partial last line: it is skipped and redone
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const s = JSON.parse(line) as StateLine;
      done.set(s.id, s);
    } catch {}
  }
  return done;
}

/** Checks the parsed gold plan says what the record was built to say (each reference, each literal). */
function roundTrips(
  record: AppBenchRecord,
  catalog: Catalog,
  calls: readonly PathCall[],
): string | undefined {
  const { plan, repairs } = appBenchGoldPlan(record, catalog);
  if (repairs.length) return repairs[0]!.detail;
  if (plan.steps.length !== calls.length) return `${plan.steps.length} calls parsed, ${calls.length} built`;
  for (const [i, step] of plan.steps.entries()) {
    const params = calls[i]!.call.params;
    if (Object.keys(step.args).length !== Object.keys(params).length) return `${step.id}: arguments lost`;
    for (const [name, v] of Object.entries(step.args)) {
      const literal = `'${params[name]}'`;
      const written = new RegExp(`#${name}='`).test(record.output.api_results[i]!);
      if (v.kind === 'literal' ? `'${String(v.value)}'` !== literal || !written : written)
        return `${step.id}.${name} does not read back as written`;
    }
  }
  return undefined;
}

/**
 * `apiary data build appbench`: AppBench records from SGD dialogues (docs/appbench.md, "Building
 * your own data"). Resumable: every candidate done is a line of `build-state.jsonl` in `out`, and
 * `test_{ss,sm,ms,mm}.json` plus `manifest.json` are rewritten from it at the end of each run.
 */
export async function buildAppBench(o: BuildAppBenchOptions): Promise<BuildAppBenchReport> {
  mkdirSync(o.out, { recursive: true });
  const settings = settingsOf(o);
  const settingsPath = join(o.out, SETTINGS_FILE);
  if (existsSync(settingsPath)) {
    const before = readFileSync(settingsPath, 'utf8').trim();
    if (before !== stableJson(settings))
      throw new ApiaryError(
        'USAGE',
        `${o.out} holds a build with other settings (${before}); resume with the same --sgd, --seed, --refs, --repeats, --model and --threshold, or pass another --out`,
      );
  } else writeFileAtomic(settingsPath, `${stableJson(settings)}\n`);

  const files = readSgdFiles(o.sgdDir);
  const dialogues = sgdDialoguesOf(files);
  // every plan is run on simulated apps serving these very dialogues before it is kept
  const db = new Database(':memory:');
  buildSgdDatabase(files, db);
  const handlers = createSgdApps({ db, catalog: o.catalog });
  const { candidates, rejected } = buildCandidates(dialogues, o.seed, {
    catalog: o.catalog,
    repeats: o.repeats,
  });
  const state = readState(o.out);
  const limit = o.limit ?? Number.POSITIVE_INFINITY;
  const kept = (c: AppBenchCategory) => [...state.values()].filter((s) => s.category === c && s.kept).length;
  const planned = () =>
    APPBENCH_CATEGORIES.reduce((n, c) => n + Math.min(limit, candidates[c].length), 0) +
    [...state.values()].filter((s) => !s.kept).length;
  const resumed = state.size;
  let failed = 0;
  const progress = () => o.onProgress?.({ done: state.size, total: planned(), skipped: resumed, failed });
  progress();

  let interrupted = false;
  try {
    // round robin over the categories, so an interrupted build has some of each
    const queues = APPBENCH_CATEGORIES.map((c) => ({
      c,
      items: candidates[c].filter((x) => !state.has(x.id)),
    }));
    let failedInARow = 0;
    while (queues.some((q) => q.items.length && kept(q.c) < limit)) {
      for (const q of queues) {
        if (!q.items.length || kept(q.c) >= limit) continue;
        if (o.signal?.aborted) {
          interrupted = true;
          break;
        }
        const cand = q.items.shift()!;
        let error: unknown;
        const line = await buildOne(cand, o, handlers).catch((e: unknown) => {
          error = e;
          return undefined;
        });
        if (line) {
          state.set(line.id, line);
          appendFileSync(join(o.out, STATE_FILE), `${JSON.stringify(line)}\n`);
          failedInARow = 0;
        } else if (o.signal?.aborted) interrupted = true;
        else {
          failed++;
          // an endpoint that keeps failing would only burn through the candidates: stop, keep what is done
          if (++failedInARow >= MAX_FAILURES_IN_A_ROW) {
            writeOutputs(o, state, settings, rejected);
            throw new ApiaryError(
              'MODEL_CALL_FAILED',
              `${failedInARow} instructions in a row could not be written or scored (last: ${(error as Error)?.message ?? String(error)}); the ${state.size} candidate(s) done are kept in ${o.out}: rerun the same command to continue`,
            );
          }
        }
        progress();
      }
      if (interrupted) break;
    }
  } finally {
    db.close();
  }
  writeOutputs(o, state, settings, rejected);
  return {
    out: o.out,
    instructions: o.model ? 'model' : 'templated',
    perCategory: Object.fromEntries(
      APPBENCH_CATEGORIES.map((c) => {
        const lines = [...state.values()].filter((s) => s.category === c);
        const k = lines.filter((s) => s.kept).length;
        return [c, { candidates: candidates[c].length, kept: k, dropped: lines.length - k }];
      }),
    ) as BuildAppBenchReport['perCategory'],
    rejectedDialogues: rejected,
    resumed,
    failed,
    interrupted,
  };
}

async function buildOne(
  cand: BuildCandidate,
  o: BuildAppBenchOptions,
  handlers: readonly AppHandler[],
): Promise<StateLine> {
  const record = pathRecord(cand.calls, o.catalog, o.refs);
  const { plan } = appBenchGoldPlan(record, o.catalog);
  const scale = analyzePlan(plan);
  const base = {
    id: cand.id,
    category: cand.category,
    parallel_scale: scale.parallelScale,
    sequential_scale: scale.sequentialScale,
  };
  const broken = roundTrips(record, o.catalog, cand.calls);
  if (broken !== undefined)
    return { ...base, kept: false, reason: `not-round-trip: ${broken}`, instruction: 'templated', record };
  // a reference reads the first row the simulated app returns, which may not be the row the
  // dialogue's service returned first (another dialogue made the same search): run it to know
  const run = await checkAppBenchGold([{ id: cand.id, category: cand.category, record }], {
    catalog: o.catalog,
    handlers,
  });
  if (run.completed !== 1) {
    const f = run.findings.find((x) => x.kind !== 'unsourced-literal');
    const reason = `not-executable: ${f ? `${f.kind} ${f.call ?? ''} ${f.message}` : 'incomplete'}`;
    return { ...base, kept: false, reason, instruction: 'templated', record };
  }
  if (!o.model) {
    record.input = templatedInstruction(record);
    return { ...base, kept: true, instruction: 'templated', record };
  }
  const m = { model: o.model.model, ...(o.signal ? { signal: o.signal } : {}) };
  record.input = await writeInstruction(cand.dialogues, record, m);
  if (!record.input)
    return { ...base, kept: false, reason: 'empty instruction', instruction: 'model', record };
  const { score, reply } = await scoreInstruction(record.input, m);
  if (score === undefined)
    return {
      ...base,
      kept: false,
      reason: `unscored: ${JSON.stringify(reply.slice(0, 80))}`,
      instruction: 'model',
      record,
    };
  const keep = score >= o.threshold;
  return {
    ...base,
    kept: keep,
    ...(keep ? {} : { reason: `score ${score} < ${o.threshold}` }),
    instruction: 'model',
    score,
    record,
  };
}

/** `test_{ss,sm,ms,mm}.json` (the released format, records only) and `manifest.json` (the rest). */
function writeOutputs(
  o: BuildAppBenchOptions,
  state: Map<string, StateLine>,
  settings: ReturnType<typeof settingsOf>,
  rejected: Record<PathRejection, number>,
): void {
  const manifestRecords: unknown[] = [];
  const counts: Record<string, number> = {};
  for (const c of APPBENCH_CATEGORIES) {
    const lines = [...state.values()].filter((s) => s.category === c && s.kept);
    const limited = lines.slice(0, o.limit ?? lines.length);
    counts[c] = limited.length;
    writeFileAtomic(
      join(o.out, appBenchFileName(c)),
      `${JSON.stringify(
        limited.map((s) => s.record),
        null,
        1,
      )}\n`,
    );
    for (const [i, s] of limited.entries())
      manifestRecords.push({
        file: appBenchFileName(c),
        index: i,
        source: s.id,
        instruction: s.instruction,
        ...(s.score !== undefined ? { score: s.score } : {}),
        parallel_scale: s.parallel_scale,
        sequential_scale: s.sequential_scale,
      });
  }
  const dropped = [...state.values()].filter((s) => !s.kept).map((s) => ({ source: s.id, reason: s.reason }));
  const manifest = {
    builder: 'apiary data build appbench',
    ...settings,
    instructions: o.model ? 'model (Table 6 prompt), scored with the Table 7 prompt' : 'templated (no model)',
    counts,
    rejected_dialogues: rejected,
    records: manifestRecords,
    dropped,
  };
  writeFileAtomic(join(o.out, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
}
