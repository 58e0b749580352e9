import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadCatalog } from '../../catalog/index.js';
import { parseChoice } from '../../cli/options.js';
import { printJson } from '../../cli/output.js';
import type { ScoreFlags } from '../../plugins/index.js';
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
} from './index.js';

const MODES = ['official', 'corrected', 'both'] as const;

/** Samples of every category file present in `dir` (official `test_*.json`, else `dev_*.json`). */
function loadSamplesFrom(dir: string): AppBenchSample[] {
  for (const prefix of ['test', 'dev'] as const) {
    const categories = APPBENCH_CATEGORIES.filter((c) => existsSync(join(dir, `${prefix}_${c}.json`)));
    if (categories.length) return loadAppBenchSamples(dir, { prefix, categories });
  }
  throw new NotFoundError('AppBench data folder (with test_{ss,sm,ms,mm}.json or dev_*.json)', dir);
}

/** `apiary score appbench`: the AppBench report in official and/or corrected mode (unchanged flags). */
export async function scoreAppBenchPredictions(flags: ScoreFlags): Promise<void> {
  const predictions = flags.predictions ?? flags.results;
  if (!predictions) throw new ApiaryError('USAGE', 'pass --predictions FILE');
  const mode: AppBenchReportMode = parseChoice('--mode', flags.mode, MODES);
  const dir = findAppBenchData(flags.data);
  if (!dir)
    throw new ApiaryError(
      'NOT_FOUND',
      'no AppBench data: run `apiary data pull appbench` or pass --data DIR (test_*.json or dev_*.json)',
    );
  const { lines, truncatedTail } = readAppBenchPredictions(predictions);
  const samples = new Map(loadSamplesFrom(dir).map((s) => [s.id, s]));
  const byId = new Map<string, AppBenchPrediction>();
  let duplicates = 0;
  for (const { line, prediction } of lines) {
    if (!samples.has(prediction.id))
      throw new InputInvalidError(
        { file: predictions, record: `line ${line}`, field: 'id' },
        `unknown sample id "${prediction.id}" (ids are <category>-<index> of the files in ${dir})`,
      );
    if (byId.has(prediction.id)) duplicates++;
    byId.set(prediction.id, prediction); // the last line of an id wins (resumed runs)
  }
  const items = [...byId].map(([id, prediction]) => ({ sample: samples.get(id)!, prediction }));
  const report = scoreAppBench(items, loadCatalog('appbench'));
  report.notes.push(`data: ${dir}; ${items.length} of ${samples.size} samples have a prediction`);
  if (truncatedTail) report.notes.push(`${predictions}: torn last line (killed run) ignored`);
  if (duplicates) report.notes.push(`${duplicates} repeated id(s) in ${predictions}: the last line wins`);
  if (flags.json) {
    const keep = <T extends { official: unknown; corrected: unknown }>({ official, corrected, ...g }: T) => ({
      ...g,
      ...(mode !== 'corrected' ? { official } : {}),
      ...(mode !== 'official' ? { corrected } : {}),
    });
    const { errors, officialErrors, byCategory, byParallelScale, bySequentialScale, ...rest } = report;
    printJson({
      mode,
      predictions,
      data: dir,
      ...keep(rest),
      ...(mode !== 'corrected' ? { officialErrors } : {}),
      ...(mode !== 'official' ? { errors } : {}),
      byCategory: byCategory.map(keep),
      byParallelScale: byParallelScale.map(keep),
      bySequentialScale: bySequentialScale.map(keep),
    });
  } else process.stdout.write(`${formatAppBenchReport(report, { mode })}\n`);
}
