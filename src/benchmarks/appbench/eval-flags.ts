import { parseChoice, parseInteger, parseList } from '../../cli/options.js';
import type { TaskEvalFlag, TaskEvalFlags } from '../../plugins/index.js';
import { ApiaryError } from '../../shared/index.js';
import { APPBENCH_CATEGORIES } from './categories.js';

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

const LEGACY = ['prompting', 'shots', 'demos', 'categories'] as const;

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
  const given = LEGACY.filter((k) => flags[k] !== undefined);
  if (!given.length) return { solverOptions: {}, taskOptions: {} };
  if (taskName !== 'appbench') throw new ApiaryError('USAGE', notAppBench(`--${given[0]}`, taskName));
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

const notAppBench = (flag: string, task: string) =>
  `${flag} is an appbench flag; for ${task} use --solver and --option key=value (see apiary tasks)`;

const flag = (flags: string, description: string): TaskEvalFlag => ({
  flags,
  description,
  notForTask: notAppBench,
  inEvalAll: 'refuse',
});

/** `apiary eval appbench`'s own flags. */
export const appBenchEvalFlags: TaskEvalFlags = {
  flags: [
    flag('--prompting <mode>', 'appbench: flat | hierarchical (same as --solver when a model is set)'),
    flag('--shots <k>', 'appbench: k demonstrations (same as --option shots=k)'),
    flag('--demos <how>', 'appbench: same-app | random (same as --option demos=…)'),
    flag('--categories <list>', 'appbench: comma-separated subset of ss,sm,ms,mm'),
  ],
  settings(given) {
    const legacy = mapLegacyAppBenchFlags('appbench', given as LegacyAppBenchFlags);
    return {
      taskOptions: legacy.taskOptions,
      solverOptions: legacy.solverOptions,
      ...(legacy.prompting ? { solverWithModel: legacy.prompting } : {}),
    };
  },
};
