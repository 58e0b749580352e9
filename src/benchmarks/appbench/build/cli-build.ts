import { resolve } from 'node:path';
import type { Command } from 'commander';
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
  seed: string;
  threshold: string;
  refs: string;
  repeats: string;
  json?: boolean;
}

/** The default kept score (Table 7, 1–10); the paper gives none (docs/appbench.md, "Building your own data"). */
const DEFAULT_THRESHOLD = '7';

/** `apiary data build appbench`: flags and action (the work is loaded when it runs). */
export function registerAppBenchBuild(command: Command): void {
  command
    .option(
      '--sgd <dir>',
      'an SGD release: a folder with train/, dev/, test/ dialogues_*.json (or one split)',
    )
    .option('--out <dir>', 'folder for test_{ss,sm,ms,mm}.json, manifest.json and the build state')
    .option(
      '--model <id>',
      'model that writes (Table 6) and scores (Table 7) the instructions (or $APIARY_MODEL)',
    )
    .option('--base-url <url>', 'OpenAI-compatible endpoint (or $APIARY_BASE_URL)')
    .option('--api-key-env <name>', 'environment variable holding the API key')
    .option('--limit <n>', 'at most N records per category')
    .option('--seed <n>', 'seed of the dialogue order and of the MS compositions', '0')
    .option('--threshold <x>', 'keep a record whose Table 7 score is at least X (1–10)', DEFAULT_THRESHOLD)
    .option('--refs <rule>', `when an argument becomes a reference: ${REFERENCE_RULES.join(' | ')}`, 'value')
    .option('--repeats <rule>', `what a repeated API keeps: ${REPEAT_RULES.join(' | ')} of its calls`, 'all')
    .option('--json', 'print the report as JSON')
    .action(async (flags: BuildFlags) => {
      if (!flags.sgd) throw new ApiaryError('USAGE', '--sgd <dir> is required (an SGD release)');
      if (!flags.out) throw new ApiaryError('USAGE', '--out <dir> is required');
      const seed = parseInteger('--seed', flags.seed, { min: 0 });
      const limit = parseInteger('--limit', flags.limit, { min: 1 });
      const threshold = parseNumber('--threshold', flags.threshold, { min: 1, max: 10 });
      const refs = parseChoice('--refs', flags.refs, REFERENCE_RULES);
      const repeats = parseChoice('--repeats', flags.repeats, REPEAT_RULES);
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
    });
}
