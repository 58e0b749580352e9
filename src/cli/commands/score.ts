import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { loadCatalog } from '../../catalog/index.js';
import { ApiaryError, InputInvalidError, NotFoundError } from '../../shared/index.js';
import {
  APPBENCH_CATEGORIES,
  type AppBenchPrediction,
  type AppBenchReportMode,
  type AppBenchSample,
  findAppBenchData,
  formatAppBenchReport,
  loadAppBenchSamples,
  readAppBenchPredictions,
  scoreAppBench,
} from '../../tasks/appbench/index.js';
import { printJson } from '../output.js';

interface ScoreAppBenchFlags {
  predictions: string;
  data?: string;
  mode: string;
  json?: boolean;
}

const MODES = ['official', 'corrected', 'both'] as const;

/** Samples of every category file present in `dir` (official `test_*.json`, else `dev_*.json`). */
function loadSamplesFrom(dir: string): AppBenchSample[] {
  for (const prefix of ['test', 'dev'] as const) {
    const categories = APPBENCH_CATEGORIES.filter((c) => existsSync(join(dir, `${prefix}_${c}.json`)));
    if (categories.length) return loadAppBenchSamples(dir, { prefix, categories });
  }
  throw new NotFoundError('AppBench data folder (with test_{ss,sm,ms,mm}.json or dev_*.json)', dir);
}

export function registerScoreCommands(program: Command): void {
  const score = program.command('score').description('re-score saved predictions without calling a model');

  score
    .command('appbench')
    .description('score AppBench replies (JSONL of {id, reply, error?}) in official and corrected mode')
    .requiredOption('-p, --predictions <file>', 'JSONL predictions or a harness results file (id + reply)')
    .option('--data <dir>', 'folder with test_*.json (official) or dev_*.json; default: pulled data')
    .option('--mode <mode>', 'official | corrected | both', 'both')
    .option('--json', 'machine-readable report')
    .action((flags: ScoreAppBenchFlags) => {
      const mode = flags.mode as AppBenchReportMode;
      if (!MODES.includes(mode))
        throw new ApiaryError('USAGE', `unknown --mode "${flags.mode}" (${MODES.join(' | ')})`);
      const dir = findAppBenchData(flags.data);
      if (!dir)
        throw new ApiaryError(
          'NOT_FOUND',
          'no AppBench data: run `apiary data pull appbench` or pass --data DIR (test_*.json or dev_*.json)',
        );
      const { lines, truncatedTail } = readAppBenchPredictions(flags.predictions);
      const samples = new Map(loadSamplesFrom(dir).map((s) => [s.id, s]));
      const byId = new Map<string, AppBenchPrediction>();
      let duplicates = 0;
      for (const { line, prediction } of lines) {
        if (!samples.has(prediction.id))
          throw new InputInvalidError(
            { file: flags.predictions, record: `line ${line}`, field: 'id' },
            `unknown sample id "${prediction.id}" (ids are <category>-<index> of the files in ${dir})`,
          );
        if (byId.has(prediction.id)) duplicates++;
        byId.set(prediction.id, prediction); // the last line of an id wins (resumed runs)
      }
      const items = [...byId].map(([id, prediction]) => ({ sample: samples.get(id)!, prediction }));
      const report = scoreAppBench(items, loadCatalog('appbench'));
      report.notes.push(`data: ${dir}; ${items.length} of ${samples.size} samples have a prediction`);
      if (truncatedTail) report.notes.push(`${flags.predictions}: torn last line (killed run) ignored`);
      if (duplicates)
        report.notes.push(`${duplicates} repeated id(s) in ${flags.predictions}: the last line wins`);
      if (flags.json) {
        const keep = <T extends { official: unknown; corrected: unknown }>({
          official,
          corrected,
          ...g
        }: T) => ({
          ...g,
          ...(mode !== 'corrected' ? { official } : {}),
          ...(mode !== 'official' ? { corrected } : {}),
        });
        const { errors, officialErrors, byCategory, byParallelScale, bySequentialScale, ...rest } = report;
        printJson({
          mode,
          predictions: flags.predictions,
          data: dir,
          ...keep(rest),
          ...(mode !== 'corrected' ? { officialErrors } : {}),
          ...(mode !== 'official' ? { errors } : {}),
          byCategory: byCategory.map(keep),
          byParallelScale: byParallelScale.map(keep),
          bySequentialScale: bySequentialScale.map(keep),
        });
      } else process.stdout.write(`${formatAppBenchReport(report, { mode })}\n`);
    });
}
