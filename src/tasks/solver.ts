/**
 * Solvers as values, in the spirit of Inspect AI: a solver is a function from one sample's state to
 * the next state. A task's registered solvers (`TaskDefinition.solvers`) are `SolverDefinition`s:
 * a name, a zod schema of typed arguments (validated, then recorded in the run spec as
 * `solver.options`) and a factory that builds the solver for one run. Steps that several solvers
 * share (few-shot demos, retrieval) are solvers of their own, composed with `chain`.
 */

import type { z } from 'zod';
import type { TokenUsage } from '../models/index.js';
import { ApiaryError } from '../shared/index.js';
import type { OptionsSchema, Outcome, SolveContext, Solved, TaskSample } from './task.js';
import { validateOptions } from './task-options.js';

/** One sample on its way through a solver. */
export interface SolverState<S extends TaskSample = TaskSample, Output = unknown> {
  readonly sample: S;
  /** What the last step produced (recorded and scored once the solver is done). */
  output?: Output;
  /** Token counts of the model calls made so far for this sample. */
  usage?: TokenUsage;
  /** Model calls made so far for this sample. */
  modelCalls?: number;
  /** What earlier steps leave for later ones (few-shot demos, retrieved APIs); not recorded. */
  readonly store: Readonly<Record<string, unknown>>;
}

/** A solver: one step (or a chain of steps) over a sample's state. */
export type Solver<S extends TaskSample = TaskSample, Output = unknown> = (
  state: SolverState<S, Output>,
  ctx: SolveContext,
) => Promise<SolverState<S, Output>>;

/** The same sample and outcome always give the same JSON-serialisable score; may be async. */
export type Scorer<S extends TaskSample, Output, Score> = (
  sample: S,
  outcome: Outcome<Output>,
) => Score | Promise<Score>;

/** A registered solver: what `apiary tasks` lists, the CLI validates and a task's `load` builds. */
// biome-ignore lint/suspicious/noExplicitAny: a task's table holds solvers of any argument and environment types
export interface SolverDefinition<Args = any, Env = any, S extends TaskSample = any, Output = any> {
  readonly name: string;
  readonly description: string;
  /** Its arguments: defaults are the solver's defaults, issues name the argument. */
  readonly args: OptionsSchema;
  /** The same schema as `args`, under the name the CLI and run specs (`solver.options`) use. */
  readonly options: OptionsSchema;
  /** true: refuses to run without a model; 'optional': uses one when configured; false: never. */
  readonly needsModel: boolean | 'optional';
  /** Builds the solver for one run from validated arguments and what the task loaded (`env`). */
  create(args: Args, env: Env): Solver<S, Output>;
}

/** Defines a solver; `create` receives its arguments parsed by `args` (defaults filled in). */
export function defineSolver<Schema extends OptionsSchema, Env, S extends TaskSample, Output>(spec: {
  name: string;
  description: string;
  args: Schema;
  needsModel: boolean | 'optional';
  create(args: z.output<Schema>, env: Env): Solver<S, Output>;
}): SolverDefinition<z.output<Schema>, Env, S, Output> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(spec.name))
    throw new ApiaryError('USAGE', `invalid solver name "${spec.name}" (lower-case letters, digits, dashes)`);
  return { ...spec, options: spec.args };
}

/**
 * Builds a registered solver: validates `args` (command-line strings coerced, defaults filled) and
 * calls its factory. A bad argument is a USAGE error naming the solver and the argument, e.g.
 * `solver "flat" option "shots": Too small: expected number to be >=0`.
 */
export function createSolver<Env, S extends TaskSample, Output>(
  // biome-ignore lint/suspicious/noExplicitAny: the arguments are whatever `def.args` parses
  def: SolverDefinition<any, Env, S, Output>,
  args: Record<string, unknown>,
  env: Env,
): Solver<S, Output> {
  return def.create(validateOptions(def.args, args, `solver "${def.name}"`), env);
}

/** Runs solvers one after the other, each on the state the previous one returned. */
export function chain<S extends TaskSample, Output>(...solvers: Array<Solver<S, Output>>): Solver<S, Output> {
  if (solvers.length === 1) return solvers[0]!;
  return async (state, ctx) => {
    let s = state;
    for (const solve of solvers) s = await solve(s, ctx);
    return s;
  };
}

/** A solver from a function that turns one sample into its output (a task with a single step). */
export function sampleSolver<S extends TaskSample, Output>(
  solve: (sample: S, ctx: SolveContext) => Promise<Solved<Output>>,
): Solver<S, Output> {
  return async (state, ctx) => {
    const solved = await solve(state.sample, ctx);
    return withOutput(state, solved);
  };
}

/** The state with a step's output, its usage and model calls added to the sample's totals. */
export function withOutput<S extends TaskSample, Output>(
  state: SolverState<S, Output>,
  solved: Solved<Output>,
): SolverState<S, Output> {
  const { usage, modelCalls } = state;
  // one literal of a fixed shape, no spread: this runs once per step of every sample
  return {
    sample: state.sample,
    store: state.store,
    output: solved.output,
    usage: !solved.usage
      ? usage
      : usage
        ? {
            inputTokens: usage.inputTokens + solved.usage.inputTokens,
            outputTokens: usage.outputTokens + solved.usage.outputTokens,
          }
        : solved.usage,
    modelCalls: solved.modelCalls === undefined ? modelCalls : (modelCalls ?? 0) + solved.modelCalls,
  };
}

/** The state with `values` added to its store (for the steps that follow). */
export function withStore<S extends TaskSample, Output>(
  state: SolverState<S, Output>,
  values: Record<string, unknown>,
): SolverState<S, Output> {
  return {
    sample: state.sample,
    store: { ...state.store, ...values },
    output: state.output,
    usage: state.usage,
    modelCalls: state.modelCalls,
  };
}

/** The store of a fresh state (shared: steps add to a store by copying it, never in place). */
const EMPTY_STORE: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Runs a task's solver on one sample from a fresh state and returns what the harness records. A
 * solver that leaves no output is an INTERNAL error (recorded against the sample, like any throw).
 */
export async function solveSample<S extends TaskSample, Output>(
  task: { readonly name: string; readonly solver: Solver<S, Output> },
  sample: S,
  ctx: SolveContext,
): Promise<Solved<Output>> {
  const state = await task.solver({ sample, store: EMPTY_STORE }, ctx);
  if (state.output === undefined)
    throw new ApiaryError(
      'INTERNAL',
      `task "${task.name}": the solver left no output for sample "${sample.id}"`,
    );
  // absent, not undefined, when no step counted them (the record keeps today's shape)
  if (state.usage === undefined)
    return state.modelCalls === undefined
      ? { output: state.output }
      : { output: state.output, modelCalls: state.modelCalls };
  return state.modelCalls === undefined
    ? { output: state.output, usage: state.usage }
    : { output: state.output, usage: state.usage, modelCalls: state.modelCalls };
}

/** The registered solver `name` of a task's table, NOT_FOUND listing the task's solvers. */
export function solverNamed<D extends SolverDefinition>(
  owner: string,
  solvers: Readonly<Record<string, D>>,
  name: string,
): D {
  const solver = solvers[name];
  if (!solver)
    throw new ApiaryError(
      'NOT_FOUND',
      `task "${owner}" has no solver "${name}" (solvers: ${Object.keys(solvers).join(', ')})`,
    );
  return solver;
}
