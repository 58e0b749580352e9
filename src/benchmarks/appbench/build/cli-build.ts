import { resolve } from 'node:path';
import { parseChoice, parseInteger, parseNumber } from '../../../cli/options.js';
import { printJson } from '../../../cli/output.js';
import { ApiaryError } from '../../../shared/index.js';
import { REFERENCE_RULES, REPEAT_RULES } from './planning-path.js';

interface BuildFlags {
  sgd?: string;
  out?: string;
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  limit?: string;
  seed?: string;
  threshold?: string;
  refs?: string;
  repeats?: string;
  json?: boolean;
}

/** The default kept score (Table 7, 1–10); the paper gives none (docs/appbench.md, "Building your own data"). */
const DEFAULT_THRESHOLD = '7';

/** `apiary data build appbench`: the flags as commander parsed them (declared in plugin.ts); the work is loaded when it runs. */
export async function buildAppBench(parsed: Readonly<Record<string, unknown>>): Promise<void> {
  const flags = parsed as BuildFlags;
  if (!flags.sgd) throw new ApiaryError('USAGE', '--sgd <dir> is required (an SGD release)');
  if (!flags.out) throw new ApiaryError('USAGE', '--out <dir> is required');
  const seed = parseInteger('--seed', flags.seed ?? '0', { min: 0 });
  const limit = parseInteger('--limit', flags.limit, { min: 1 });
  const threshold = parseNumber('--threshold', flags.threshold ?? DEFAULT_THRESHOLD, { min: 1, max: 10 });
  const refs = parseChoice('--refs', flags.refs ?? 'value', REFERENCE_RULES);
  const repeats = parseChoice('--repeats', flags.repeats ?? 'all', REPEAT_RULES);
  const { runAppBenchBuild } = await import('./run-build.js');
  const report = await runAppBenchBuild({
    sgdDir: resolve(flags.sgd),
    out: resolve(flags.out),
    seed,
    threshold,
    refs,
    repeats,
    ...(limit !== undefined ? { limit } : {}),
    json: Boolean(flags.json),
    model: { model: flags.model, baseURL: flags.baseUrl, apiKeyEnv: flags.apiKeyEnv },
  });
  if (flags.json) printJson(report);
}
