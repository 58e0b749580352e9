import type { Command } from 'commander';
import { APPBENCH_CURRENT_DATE } from '../../benchmarks/appbench/index.js';
import { loadCatalog } from '../../catalog/index.js';
import { resolveModelSetup } from '../../models/index.js';
import {
  buildSftSamples,
  formatSftJsonl,
  loadAppBenchGoldTasks,
  type ParaphraseOptions,
  SFT_BALANCES,
  SFT_FORMATS,
  SFT_PROMPT_STYLES,
  type SftStats,
} from '../../sft/index.js';
import { ApiaryError } from '../../shared/index.js';
import { EXIT_INTERRUPTED, trapSigint } from '../interrupt.js';
import { parseChoice, parseInteger, parseOutputPath, writeOutputFile } from '../options.js';
import { printJson } from '../output.js';

interface SftBuildFlags {
  source: string;
  data?: string;
  catalog: string;
  format: string;
  style: string;
  out?: string;
  seed: string;
  distractors: string;
  balance: string;
  limit?: string;
  shuffle?: boolean;
  paraphrase?: boolean;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  concurrency: string;
  overwrite?: boolean;
  json?: boolean;
}

function summary(stats: SftStats, format: string, out: string | undefined): string {
  const lines = [
    `${stats.samples} samples (${stats.single} single-step, ${stats.multi} multi-step; ${stats.repeats} repeats, balance ${stats.balance}, style ${stats.style}${stats.balanced ? '' : ', not balanced'}) from ${stats.tasks} tasks, format ${format}${out ? ` → ${out}` : ''}`,
  ];
  if (stats.skipped.length) {
    lines.push(`skipped ${stats.skipped.length} task(s) whose gold plan does not validate:`);
    for (const s of stats.skipped) lines.push(`  ${s.id}: ${s.reason}`);
  }
  const cats = Object.entries(stats.perCategory);
  if (cats.length) lines.push(`per category: ${cats.map(([c, n]) => `${c} ${n}`).join(', ')}`);
  lines.push(
    `per app: ${Object.entries(stats.perApp)
      .map(([a, n]) => `${a} ${n}`)
      .join(', ')}`,
  );
  if (stats.interrupted)
    lines.push(
      `interrupted: ${stats.interrupted.kept} sample(s) written, ${stats.interrupted.dropped} left out (not paraphrased)`,
    );
  if (stats.paraphrase)
    lines.push(
      `paraphrase: ${stats.paraphrase.ok} ok, ${stats.paraphrase.rejected} rejected, ${stats.paraphrase.failed} failed (original kept)`,
    );
  return `${lines.join('\n')}\n`;
}

export function registerSftCommands(program: Command): void {
  const sft = program.command('sft').description('fine-tuning (SFT) data from gold plans');

  sft
    .command('build')
    .description(
      'build chat-format JSONL (OpenAI fine-tuning or ShareGPT) from gold plans, with TPTU-v2 augmentations',
    )
    .option('--source <name>', 'where the gold plans come from (appbench)', 'appbench')
    .option(
      '--data <dir>',
      'folder holding test_{ss,sm,ms,mm}.json or dev_*.json (or its parent with appbench/); also used for the catalog',
    )
    .option(
      '-c, --catalog <name|file>',
      'catalog the gold plans are checked against and listed from',
      'appbench',
    )
    .option('-f, --format <format>', 'openai | sharegpt', 'openai')
    .option('--style <style>', "prompt style: appbench (the agents' prompt) | compact", 'appbench')
    .option(
      '-o, --out <file>',
      'write the JSONL here, creating missing folders (default: stdout, counts on stderr)',
    )
    .option('--overwrite', 'replace an existing --out file')
    .option('--seed <n>', 'PRNG seed: same seed, same data', '0')
    .option('--distractors <n>', 'irrelevant APIs added to each prompt', '5')
    .option('--balance <mode>', 'single/multi-step balance: upsample | downsample | none', 'upsample')
    .option('--no-shuffle', 'keep catalog order in the API list instead of shuffling it')
    .option('--limit <n>', 'at most N samples')
    .option('--paraphrase', 'paraphrase each instruction through a model')
    .option('--model <id>', 'model for --paraphrase (or $APIARY_MODEL)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint for --paraphrase (or $APIARY_BASE_URL)')
    .option('--api-key-env <name>', 'environment variable holding the API key')
    .option('--concurrency <n>', 'paraphrase calls in flight at once', '4')
    .option('--json', 'print the counts as JSON')
    .action(async (flags: SftBuildFlags) => {
      parseChoice('--source', flags.source, ['appbench']);
      if (!flags.data)
        throw new ApiaryError('USAGE', '--data <dir> is required (folder with the AppBench files)');
      const format = parseChoice('--format', flags.format, SFT_FORMATS);
      const balance = parseChoice('--balance', flags.balance, SFT_BALANCES);
      const style = parseChoice('--style', flags.style, SFT_PROMPT_STYLES);
      const seed = parseInteger('--seed', flags.seed, { min: 0 });
      const distractors = parseInteger('--distractors', flags.distractors, { min: 0 });
      const limit = parseInteger('--limit', flags.limit, { min: 0 });
      const concurrency = parseInteger('--concurrency', flags.concurrency, { min: 1 });
      // Checked before the (possibly paid) paraphrasing; written whole at the end (temp file + rename).
      const out = parseOutputPath('--out', flags.out, 'file', { overwrite: Boolean(flags.overwrite) });
      if (!flags.paraphrase && (flags.model || flags.baseUrl))
        throw new ApiaryError('USAGE', '--model/--base-url are only used with --paraphrase');
      let paraphrase: ParaphraseOptions | undefined;
      if (flags.paraphrase) {
        const setup = resolveModelSetup({
          model: flags.model,
          baseURL: flags.baseUrl,
          apiKeyEnv: flags.apiKeyEnv,
        });
        if (!setup)
          throw new ApiaryError('USAGE', '--paraphrase needs a model: pass --model ID (and --base-url URL)');
        paraphrase = { model: setup.model };
      }

      const catalog = loadCatalog(flags.catalog, { dataDir: flags.data });
      const tasks = loadAppBenchGoldTasks(flags.data, catalog);
      // Ctrl-C while paraphrasing: the samples finished so far are written, whole, and the exit is 130
      const interrupt = paraphrase
        ? trapSigint('no new paraphrase starts; the samples finished so far are written')
        : undefined;
      const { samples, stats } = await buildSftSamples(tasks, catalog, {
        seed,
        distractors,
        balance,
        limit,
        shuffleApis: flags.shuffle !== false,
        style,
        currentDate: APPBENCH_CURRENT_DATE,
        paraphrase,
        concurrency,
        onProgress: (done, total) => {
          if (process.stderr.isTTY) process.stderr.write(`\rparaphrased ${done}/${total}`);
          if (process.stderr.isTTY && done === total) process.stderr.write('\n');
        },
        ...(interrupt ? { signal: interrupt.signal } : {}),
      }).finally(() => interrupt?.release());
      const jsonl = formatSftJsonl(samples, format);
      if (out) writeOutputFile('--out', out, jsonl);
      else process.stdout.write(jsonl);
      if (flags.json) {
        if (out) printJson({ format, out, ...stats });
        else process.stderr.write(`${JSON.stringify({ format, ...stats }, null, 2)}\n`);
      } else (out ? process.stdout : process.stderr).write(summary(stats, format, out));
      if (stats.interrupted) process.exitCode = EXIT_INTERRUPTED;
    });
}
