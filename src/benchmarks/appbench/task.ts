import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LanguageModel } from 'ai';
import type { AgentRunSummary, AgentTraceEvent, PlanningAgent } from '../../agents/index.js';
import type { Catalog } from '../../catalog/index.js';
import type { AgentDemo } from '../../retrieval/index.js';
import { ApiaryError, fnv1a32, NotFoundError } from '../../shared/index.js';
import type { Task } from '../../tasks/index.js';
import { type Solver, withOutput, withStore } from '../../tasks/index.js';
import { APPBENCH_CATEGORIES, type AppBenchCategory } from './record.js';
import { formatAppBenchReport } from './report-format.js';
import { type AppBenchSample, type LoadSamplesOptions, loadAppBenchSamples } from './sample.js';
import {
  type AppBenchReport,
  type AppBenchSampleScore,
  scoreAppBenchSample,
  summarizeAppBench,
} from './score-appbench.js';
import { type GoldState, scoreState } from './score-state.js';

/** Bump when prompting or scoring changes what a recorded AppBench result means. */
export const APPBENCH_TASK_VERSION = '1';

/** The current date AppBench gives the model (docs/appbench.md, "Prompts and sampling"). */
export const APPBENCH_CURRENT_DATE = '2019-03-01';

/** What the AppBench solver records per sample (the results line's `output`). */
export interface AppBenchOutput {
  /** The reply in AppBench line format: what the scorer reads. */
  reply: string;
  /** The model's text before cleaning, when it differs from `reply`. */
  rawReply?: string;
  /** HTTP attempts including retries, and the fault of each failed attempt. */
  attempts?: number;
  faults?: string[];
  /** Apps chosen in step 1 (hierarchical prompting). */
  selectedApps?: string[];
  /** What a tool-loop solver did (calls, outcomes, stop reason, trace): read by the state score. */
  agent?: AgentRunSummary;
  /** The agent runtime's trace: turns (messages sent, reply, tokens, timing), calls and the stop. */
  trace?: AgentTraceEvent[];
}

/** Executes a sample's gold plan on the simulated apps the solver used (for the state score). */
export type GoldStateProvider = (sample: AppBenchSample) => Promise<GoldState>;

export interface AppBenchTaskOptions {
  samples: readonly AppBenchSample[];
  catalog: Catalog;
  /** The solver of each sample (a registered one, see ./register.ts); or give `agent`. */
  solver?: AppBenchSolverFn;
  /** Shorthand for `solver: appBenchPlanner(() => agent, …)`. */
  agent?: PlanningAgent;
  model?: LanguageModel;
  currentDate?: string;
  /** With a tool-loop solver: the gold state to compare its effects with (adds the state score). */
  goldState?: GoldStateProvider;
}

export type AppBenchTask = Task<AppBenchSample, AppBenchOutput, AppBenchSampleScore, AppBenchReport>;

/** A solver of AppBench samples. */
export type AppBenchSolverFn = Solver<AppBenchSample, AppBenchOutput>;

/** Where the demos step leaves the sample's demonstrations for the planner. */
const DEMOS = 'demos';

/** Solver step: k-shot demonstrations for the sample's instruction, kept for the planner that follows. */
export function appBenchDemos(pick: (instruction: string) => Promise<AgentDemo[]>): AppBenchSolverFn {
  return async (state) => withStore(state, { [DEMOS]: await pick(state.sample.record.input) });
}

/**
 * Solver step: a planning agent answers the sample's instruction (with the demos an earlier step
 * chose, if any); the output is its reply plus what it recorded about the run.
 */
export function appBenchPlanner(
  agentFor: (demos: readonly AgentDemo[] | undefined) => PlanningAgent,
  opts: { catalog: Catalog; model?: LanguageModel; currentDate?: string },
): AppBenchSolverFn {
  const { catalog } = opts;
  const currentDate = opts.currentDate ?? APPBENCH_CURRENT_DATE;
  return async (state, ctx) => {
    const demos = state.store[DEMOS] as AgentDemo[] | undefined;
    const r = await agentFor(demos).plan(
      { instruction: state.sample.record.input, currentDate },
      {
        catalog,
        ...(opts.model ? { model: opts.model } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.events ? { trace: ctx.events } : {}),
      },
    );
    const output: AppBenchOutput = { reply: r.reply };
    if (r.rawReply !== undefined && r.rawReply !== r.reply) output.rawReply = r.rawReply;
    if (r.attempts !== undefined) output.attempts = r.attempts;
    if (r.faults?.length) output.faults = r.faults;
    if (r.selectedApps) output.selectedApps = r.selectedApps;
    if (r.agent) output.agent = r.agent;
    if (r.trace) output.trace = r.trace;
    return withOutput(state, { output, usage: r.usage, modelCalls: r.modelCalls });
  };
}

/** AppBench as a harness task: the solver plans (and maybe executes), the scorer is the official + corrected one. */
export function appBenchTask(opts: AppBenchTaskOptions): AppBenchTask {
  const { catalog, agent } = opts;
  let solver = opts.solver;
  if (!solver) {
    if (!agent) throw new ApiaryError('USAGE', 'appBenchTask needs a solver or an agent');
    solver = appBenchPlanner(() => agent, {
      catalog,
      ...(opts.model ? { model: opts.model } : {}),
      ...(opts.currentDate ? { currentDate: opts.currentDate } : {}),
    });
  }
  return {
    name: 'appbench',
    version: APPBENCH_TASK_VERSION,
    dataset: opts.samples,
    solver,
    async scorer(sample, outcome) {
      // hierarchical selection that named no App: upstream drops the sample from the official
      // denominators (a failed generation) and we do the same; the corrected scorer counts it empty
      const namedNoApp = outcome.output?.selectedApps?.length === 0;
      const score = scoreAppBenchSample(
        sample,
        {
          id: sample.id,
          reply: namedNoApp ? null : (outcome.output?.reply ?? null),
          ...(outcome.error !== undefined ? { error: outcome.error } : {}),
        },
        catalog,
      );
      const agent = outcome.output?.agent;
      if (!opts.goldState) return score;
      const gold = await opts.goldState(sample);
      return {
        ...score,
        state: scoreState(gold, agent?.calls ?? []),
        ...(agent
          ? {
              agent: {
                stopReason: agent.stopReason,
                steps: agent.steps,
                decodeFailures: agent.decodeFailures,
                callErrors: agent.callErrors,
                repairs: agent.repairs,
              },
            }
          : {}),
      };
    },
    summarize: (scores) => summarizeAppBench(scores),
    formatReport: (report) => formatAppBenchReport(report),
  };
}

/**
 * Which file prefix an AppBench folder uses: `test` (official `test_*.json`) or `dev` (the shared
 * dev subset `dev_*.json`). Throws NOT_FOUND naming the folder when it has neither.
 */
export function detectAppBenchPrefix(dir: string): 'test' | 'dev' {
  const prefix = appBenchPrefixIn(dir);
  if (prefix) return prefix;
  const missing = new NotFoundError(
    'AppBench data folder (expected test_{ss,sm,ms,mm}.json or dev_{ss,sm,ms,mm}.json)',
    dir,
  );
  // the data root (`apiary data pull` lays out <root>/appbench/) is the likely slip: name the folder
  const inner = join(dir, 'appbench');
  if (appBenchPrefixIn(inner))
    throw new ApiaryError(
      'NOT_FOUND',
      `${missing.message}; it holds appbench/ with them: pass --data ${inner}`,
    );
  throw missing;
}

function appBenchPrefixIn(dir: string): 'test' | 'dev' | undefined {
  return (['test', 'dev'] as const).find((prefix) =>
    APPBENCH_CATEGORIES.some((c) => existsSync(join(dir, `${prefix}_${c}.json`))),
  );
}

/**
 * Loads AppBench samples from a folder, detecting the file prefix. Without explicit categories
 * only the category files present are read; asked-for categories must exist.
 */
export function loadAppBenchDataset(
  dir: string,
  opts: Omit<LoadSamplesOptions, 'prefix'> = {},
): { samples: AppBenchSample[]; prefix: 'test' | 'dev'; categories: AppBenchCategory[] } {
  const prefix = detectAppBenchPrefix(dir);
  const categories = opts.categories
    ? [...opts.categories]
    : APPBENCH_CATEGORIES.filter((c) => existsSync(join(dir, `${prefix}_${c}.json`)));
  const samples = loadAppBenchSamples(dir, { ...opts, categories, prefix });
  return { samples, prefix, categories };
}

/** The gold answer of a record in reply format: one `App: [call]` line per gold call. */
export function appBenchGoldReply(record: AppBenchSample['record']): string {
  const out = record.output;
  return out.api_results
    .map((call, i) => `${out.used_app[i] ?? out.used_app.at(-1) ?? ''}: [${call}]`)
    .join('\n');
}

/**
 * k-shot demonstrations drawn from a pool of solved samples (AppBench's training split is not
 * released): for each instruction, the k pool samples with the smallest seeded hash, never the
 * instruction itself. Deterministic for a given seed, independent of run order.
 */
export function seededDemoPicker(
  pool: readonly AppBenchSample[],
  k: number,
  seed: number,
): (instruction: string) => Promise<Array<{ instruction: string; reply: string }>> {
  const norm = (t: string) => t.replace(/\s+/g, ' ').trim().toLowerCase();
  return async (instruction) => {
    if (k <= 0) return [];
    const self = norm(instruction);
    return pool
      .filter((s) => norm(s.record.input) !== self)
      .map((s) => ({ s, h: fnv1a32(`${seed}\u0000${self}\u0000${s.id}`) }))
      .sort((a, b) => a.h - b.h || a.s.id.localeCompare(b.s.id))
      .slice(0, k)
      .map(({ s }) => ({ instruction: s.record.input, reply: appBenchGoldReply(s.record) }));
  };
}
