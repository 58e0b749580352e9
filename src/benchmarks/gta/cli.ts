import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { parseOutputPath, writeOutputFile } from '../../cli/options.js';
import { readResultsFile } from '../../harness/index.js';
import { ApiaryError, type PyJson, parsePyJson, pyGet } from '../../shared/index.js';
import { loadGtaDataset } from './dataset.js';
import { formatGtaE2ePredictions, formatGtaStepPredictions } from './predictions.js';

interface PredictionFlags {
  data?: string;
  out?: string;
}

/**
 * `apiary gta predictions RUN`: an `apiary eval gta` run as an OpenCompass prediction file
 * (`gta_bench.json`), so the official evaluator can score it (and `apiary score gta` can too).
 */
function writePredictions(run: string, flags: PredictionFlags): void {
  parseOutputPath('--out', flags.out); // before the run is read (docs/errors.md)
  const file = run.endsWith('.jsonl') ? resolve(run) : join(resolve(run), 'results.jsonl');
  if (!existsSync(file)) throw new ApiaryError('NOT_FOUND', `no results file ${file}`);
  const contents = readResultsFile(file);
  const spec = contents.header?.spec;
  if (!spec) throw new ApiaryError('INPUT_INVALID', `${file}: no header record`);
  if (spec.task.name !== 'gta')
    throw new ApiaryError('USAGE', `${file} is a run of ${spec.task.name}, not of gta`);
  const mode = (spec.task.options as { mode?: string }).mode === 'step' ? 'step' : 'e2e';
  const dataset = loadGtaDataset(flags.data ?? spec.data.path);
  const byKey = new Map(dataset.records.map((r) => [r.key, r]));
  const records: Array<{ key: string; predictions: PyJson[]; golds: PyJson[] }> = [];
  let failed = 0;
  for (const sample of contents.samples) {
    if (sample.epoch !== 1) continue; // one prediction per sample: the first epoch's
    const text = (sample.output as { predictionJson?: unknown } | null)?.predictionJson;
    const record = byKey.get(sample.id);
    if (typeof text !== 'string' || !record) {
      failed++;
      continue;
    }
    const golds =
      mode === 'step'
        ? record.dialogs.filter((m) => pyGet(m, 'role') === 'assistant')
        : record.dialogs.slice(1);
    records.push({ key: sample.id, predictions: parsePyJson(text, file) as PyJson[], golds });
  }
  // dataset order (results.jsonl holds samples in the order they finished)
  const position = new Map(dataset.records.map((r, i) => [r.key, i]));
  records.sort((a, b) => position.get(a.key)! - position.get(b.key)!);
  const body = mode === 'step' ? formatGtaStepPredictions(records) : formatGtaE2ePredictions(records);
  if (flags.out) writeOutputFile('--out', flags.out, body);
  else process.stdout.write(body);
  process.stderr.write(
    `${records.length} sample(s) of a ${mode} run${failed ? `; ${failed} without a prediction (errors) left out` : ''}\n`,
  );
}

export function registerGtaCommands(program: Command): void {
  const gta = program.command('gta').description('GTA runs as files for other tools');
  gta
    .command('predictions')
    .description('write an `apiary eval gta` run as an OpenCompass prediction file (gta_bench.json)')
    .argument('<run>', 'run folder (holding results.jsonl) or the results file itself')
    .option('--data <dir>', "GTA data folder (default: the run's data path)")
    .option('--out <file>', 'write here (default: stdout)')
    .action((run: string, flags: PredictionFlags) => writePredictions(run, flags));
}
