/*
 * Pure helpers of `apiary eval`: flag parsing, today's AppBench spellings mapped onto solver and
 * options, solver choice, and the sampling settings layered over the task's defaults.
 */

import { APPBENCH_CATEGORIES } from '../../benchmarks/appbench/index.js';
import type { Price } from '../../harness/index.js';
import { ApiaryError } from '../../shared/index.js';
import type { TaskDefinition } from '../../tasks/index.js';
import { parseChoice, parseInteger, parseList, parseNumber } from '../options.js';

/** `--price-input` and `--price-output` (dollars per million tokens) go together. */
export function parsePrice(input: string | undefined, output: string | undefined): Price | null {
  if (input === undefined && output === undefined) return null;
  if (input === undefined || output === undefined)
    throw new ApiaryError(
      'USAGE',
      '--price-input and --price-output go together (dollars per million tokens)',
    );
  return {
    inputPerMTok: parseNumber('--price-input', input, { min: 0 }),
    outputPerMTok: parseNumber('--price-output', output, { min: 0 }),
  };
}

/** The AppBench flags of the first CLI: `--prompting`, `--shots`, `--demos`, `--categories`. */
export interface LegacyAppBenchFlags {
  prompting?: string;
  shots?: string;
  demos?: string;
  categories?: string;
}

function parseCategories(value: string | undefined): string[] | undefined {
  if (!value) return undefined;
  return [...new Set(parseList('--categories', value.toLowerCase(), APPBENCH_CATEGORIES))];
}

/**
 * Today's spellings as solver and options: `--prompting` names the solver used when a model is
 * configured, `--shots`/`--demos` are that solver's options (ignored by the baseline, as before),
 * `--categories` is the task option.
 */
export function mapLegacyAppBenchFlags(
  taskName: string,
  flags: LegacyAppBenchFlags,
): {
  prompting?: string;
  solverOptions: Record<string, unknown>;
  taskOptions: Record<string, unknown>;
} {
  const given = (['prompting', 'shots', 'demos', 'categories'] as const).filter(
    (k) => flags[k] !== undefined,
  );
  if (!given.length) return { solverOptions: {}, taskOptions: {} };
  if (taskName !== 'appbench')
    throw new ApiaryError(
      'USAGE',
      `--${given[0]} is an appbench flag; for ${taskName} use --solver and --option key=value (see apiary tasks)`,
    );
  parseChoice('--prompting', flags.prompting, ['flat', 'hierarchical']);
  parseChoice('--demos', flags.demos, ['same-app', 'random']);
  const shots = parseInteger('--shots', flags.shots, { min: 0 });
  const categories = parseCategories(flags.categories);
  return {
    ...(flags.prompting !== undefined ? { prompting: flags.prompting } : {}),
    solverOptions: {
      ...(shots !== undefined ? { shots } : {}),
      ...(flags.demos !== undefined ? { demos: flags.demos } : {}),
    },
    taskOptions: categories ? { categories } : {},
  };
}

/**
 * `--solver` when given; otherwise, with a model, `--prompting` or the task's default solver;
 * without one, the task's no-model solver (`fallback: true`) or its default.
 */
export function chooseSolver(
  def: Pick<TaskDefinition, 'defaultSolver' | 'noModelSolver'>,
  opts: { solver?: string; prompting?: string; hasModel: boolean },
): { solver: string; fallback: boolean } {
  if (opts.solver) return { solver: opts.solver, fallback: false };
  if (opts.hasModel) return { solver: opts.prompting ?? def.defaultSolver, fallback: false };
  if (def.noModelSolver && def.noModelSolver !== def.defaultSolver)
    return { solver: def.noModelSolver, fallback: true };
  return { solver: def.defaultSolver, fallback: false };
}

/** `--top-p`: a number in [0, 1], or `omit` to leave top_p out of requests. */
export function parseTopPFlag(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'omit') return null;
  return parseNumber('--top-p', value, { min: 0, max: 1 });
}

/** The error for a solver that needs a model when none is configured. */
/** A solver that needs a model ran without one (`eval all` skips that task rather than failing). */
export class ModelRequiredError extends ApiaryError {}

export function modelRequiredError(task: string, solver: string): ApiaryError {
  return new ModelRequiredError(
    'USAGE',
    `solver "${solver}" of ${task} needs a model: pass --base-url URL --model NAME, set APIARY_BASE_URL and ` +
      'APIARY_MODEL, or put baseURL and model in apiary.config.json' +
      ' (apiary tasks lists the solvers that need none)',
  );
}
