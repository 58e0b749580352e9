import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
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
} from '../../benchmarks/appbench/index.js';
import {
  loadGtaDataset,
  readGtaStepPredictions,
  scoreGtaE2e,
  scoreGtaSteps,
} from '../../benchmarks/gta/index.js';
import { formatShortcutsReport, scoreShortcutsResults } from '../../benchmarks/shortcutsbench/index.js';
import { loadCatalog } from '../../catalog/index.js';
import { parseResultsText } from '../../harness/index.js';
import {
  ApiaryError,
  checkJsonDepth,
  InputInvalidError,
  NotFoundError,
  type PyJson,
  readTextFile,
} from '../../shared/index.js';
import {
  type AnyTask,
  getTask,
  parseOptionAssignments,
  registerBuiltinTasks,
  routeOptions,
  type TaskDefinition,
  validateOptions,
} from '../../tasks/index.js';
import { embeddingsClientFromEnv } from '../../tools/index.js';
import { parseChoice } from '../options.js';
import { printJson } from '../output.js';

interface ScoreFlags {
  predictions?: string;
  results?: string;
  data?: string;
  mode: string;
  option?: string[];
  json?: boolean;
  embeddingsBaseUrl?: string;
  embeddingsModel?: string;
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

/** `apiary score appbench`: the AppBench report in official and/or corrected mode (unchanged flags). */
function scoreAppBenchPredictions(flags: ScoreFlags & { predictions: string }): void {
  const mode: AppBenchReportMode = parseChoice('--mode', flags.mode, MODES);
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
    const keep = <T extends { official: unknown; corrected: unknown }>({ official, corrected, ...g }: T) => ({
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
}

/** One prediction of the generic form: `{id, output, error?, epoch?}` (or a harness sample line). */
interface Prediction {
  line: number;
  id: string;
  epoch: number;
  output: unknown;
  error: string | null;
}

function readPredictions(file: string): Prediction[] {
  const text = readTextFile(file);
  if (text.trimStart().startsWith('{"type":"header"')) {
    // a harness results file: its sample lines are predictions
    return parseResultsText(text, file).samples.map((s, i) => ({
      line: i + 2,
      id: s.id,
      epoch: s.epoch,
      output: s.output,
      error: s.error,
    }));
  }
  const out: Prediction[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    checkJsonDepth(raw, { file, record: `line ${i + 1}` });
    let v: { id?: unknown; output?: unknown; error?: unknown; epoch?: unknown };
    try {
      v = JSON.parse(raw);
    } catch (e) {
      throw new InputInvalidError(
        { file, record: `line ${i + 1}` },
        `not valid JSON (${(e as Error).message})`,
      );
    }
    if (typeof v.id !== 'string' || !v.id)
      throw new InputInvalidError({ file, record: `line ${i + 1}`, field: 'id' }, 'expected a sample id');
    out.push({
      line: i + 1,
      id: v.id,
      epoch: typeof v.epoch === 'number' ? v.epoch : 1,
      output: v.output ?? null,
      error: typeof v.error === 'string' ? v.error : null,
    });
  });
  return out;
}

/** `apiary score shortcuts`: official result records (JSONL or a JSON array) in one or both modes. */
function scoreShortcuts(flags: ScoreFlags): void {
  const mode = parseChoice('--mode', flags.mode, MODES);
  const results = flags.results ?? flags.predictions;
  if (!results) throw new ApiaryError('USAGE', 'shortcuts: pass --results FILE (official result records)');
  if (!flags.data)
    throw new ApiaryError(
      'USAGE',
      'shortcuts: pass --data DIR (the official files, incl. the check-intersection file)',
    );
  const scored = scoreShortcutsResults(results, flags.data);
  const reports = [
    ...(mode !== 'corrected' ? [scored.official] : []),
    ...(mode !== 'official' ? [scored.corrected] : []),
  ];
  if (flags.json) {
    printJson({
      task: 'shortcuts',
      results,
      data: flags.data,
      records: scored.scores.length,
      notes: scored.notes,
      ...Object.fromEntries(reports.map((r) => [r.mode, r])),
    });
    return;
  }
  process.stdout.write(`${reports.map(formatShortcutsReport).join('\n\n')}\n`);
  for (const n of scored.notes) process.stdout.write(`note: ${n}\n`);
}

/** Any other task: load its data, score each prediction with the task's scorer, print its report. */
async function scoreTaskPredictions(
  def: TaskDefinition,
  flags: ScoreFlags & { predictions: string },
): Promise<void> {
  const solver = def.noModelSolver ?? def.defaultSolver;
  const routed = routeOptions(def, solver, parseOptionAssignments(flags.option ?? []));
  const options = validateOptions(def.options, routed.task, def.name);
  const loaded = await def.load({
    options,
    solver,
    solverOptions: validateOptions(
      def.solvers[solver]!.options,
      routed.solver,
      `${def.name} solver ${solver}`,
    ),
    sampling: {},
    ...(flags.data ? { dataDir: flags.data } : {}),
    seed: 0,
  });
  const task: AnyTask = loaded.task;
  const samples = new Map(task.dataset.map((s) => [s.id, s]));
  const position = new Map(task.dataset.map((s, i) => [s.id, i]));
  const seen = new Set<string>();
  let duplicates = 0;
  const scored: Array<{ epoch: number; at: number; score: unknown }> = [];
  for (const p of readPredictions(flags.predictions)) {
    const sample = samples.get(p.id);
    if (!sample)
      throw new InputInvalidError(
        { file: flags.predictions, record: `line ${p.line}`, field: 'id' },
        `unknown sample id "${p.id}" (not in ${loaded.dataSource.path})`,
      );
    const key = `${p.epoch}\u0000${p.id}`;
    if (seen.has(key)) {
      duplicates++;
      continue;
    }
    seen.add(key);
    const outcome =
      p.error !== null || p.output === null
        ? { output: null, error: p.error ?? 'no output' }
        : { output: p.output };
    scored.push({ epoch: p.epoch, at: position.get(p.id)!, score: await task.score(sample, outcome) });
  }
  // dataset order (then epoch), whatever the order of the file
  const scores = scored.sort((a, b) => a.epoch - b.epoch || a.at - b.at).map((x) => x.score);
  const report = task.summarize(scores);
  if (flags.json) {
    printJson({
      task: def.name,
      predictions: flags.predictions,
      data: loaded.dataSource.path,
      scored: scores.length,
      duplicates,
      metrics: def.metrics(report),
      report,
    });
    return;
  }
  process.stdout.write(
    `${task.formatReport ? task.formatReport(report) : JSON.stringify(report, null, 2)}\n`,
  );
  process.stdout.write(
    `${scores.length} of ${samples.size} samples scored (${loaded.dataSource.path})${duplicates ? `; ${duplicates} repeated (id, epoch) ignored: the first counts` : ''}\n`,
  );
}

/** The steps of one record: OpenCompass e2e files hold `[steps]` (one list per user turn), read `[0]`. */
const firstTurn = (list: readonly PyJson[]): PyJson[] =>
  list.length > 0 && Array.isArray(list[0]) ? (list[0] as PyJson[]) : [...list];

/**
 * `apiary score gta`: an OpenCompass prediction file (`--mode step`: InstAcc, ToolAcc, ArgAcc,
 * SummAcc; `--mode e2e`: AnsAcc, AnsAcc w/ ImgGen, tool F1), or a harness results file
 * (`results.jsonl` of `apiary eval gta`) re-scored through the task.
 */
async function scoreGtaPredictions(flags: ScoreFlags): Promise<void> {
  const mode = flags.mode === 'both' ? 'step' : flags.mode;
  if (mode !== 'step' && mode !== 'e2e')
    throw new ApiaryError('USAGE', `gta: --mode must be step or e2e (got ${flags.mode})`);
  if (!flags.data)
    throw new ApiaryError('USAGE', 'gta: pass --data DIR (the folder with dataset.json and image/)');
  if (!flags.predictions)
    throw new ApiaryError(
      'USAGE',
      'gta: pass --predictions FILE (an OpenCompass prediction file, or the results.jsonl of apiary eval gta)',
    );
  const predictionsFile = flags.predictions;
  if (predictionsFile.endsWith('.jsonl')) {
    registerBuiltinTasks();
    return scoreTaskPredictions(getTask('gta'), {
      ...flags,
      predictions: predictionsFile,
      option: [...(flags.option ?? []), `mode=${mode}`],
    });
  }
  const embedder = embeddingsClientFromEnv(process.env, {
    ...(flags.embeddingsBaseUrl ? { baseURL: flags.embeddingsBaseUrl } : {}),
    ...(flags.embeddingsModel ? { model: flags.embeddingsModel } : {}),
  });
  const dataset = loadGtaDataset(flags.data);
  const refs = new Map(dataset.records.map((r) => [r.key, r.gtAnswer]));
  const records = readGtaStepPredictions(predictionsFile);
  for (const r of records)
    if (!refs.has(r.key))
      throw new InputInvalidError(
        { file: predictionsFile, record: r.key },
        `unknown sample index (not in ${dataset.root}/dataset.json)`,
      );
  const notes = [`${records.length} of ${dataset.records.length} samples have predictions`];
  const f = (x: number) => x.toFixed(2);
  if (mode === 'e2e') {
    const scores = await scoreGtaE2e(
      records.map((r) => ({
        predictions: firstTurn(r.predictions),
        golds: firstTurn(r.golds),
        reference: refs.get(r.key)!,
      })),
      embedder,
    );
    if (scores.unscoredSubjective || scores.unscoredImgGen)
      notes.push(
        `no embeddings endpoint: ${scores.unscoredSubjective} subjective and ${scores.unscoredImgGen} image-generation record(s) scored 0`,
      );
    if (flags.json) {
      printJson({ task: 'gta', mode, predictions: predictionsFile, data: dataset.root, ...scores, notes });
      return;
    }
    const c = scores.categoryF1;
    process.stdout.write(
      `GTA end-to-end\nAnsAcc ${f(scores.ansAcc)}  AnsAcc w/ ImgGen ${f(scores.ansAccImg)}  P_F1 ${f(c.perception.f1)}  O_F1 ${f(c.operation.f1)}  L_F1 ${f(c.logic.f1)}  C_F1 ${f(c.creativity.f1)}\ntool calls ${scores.toolCall} (errors ${scores.toolCallError})\n${notes.join('\n')}\n`,
    );
    return;
  }
  const scores = await scoreGtaSteps(
    records.map((r) => ({ ...r, reference: refs.get(r.key)! })),
    embedder,
  );
  if (scores.unscoredSubjective)
    notes.push(
      `${scores.unscoredSubjective} subjective answer step(s) scored 0 (no embedder): SummAcc is a lower bound`,
    );
  if (flags.json) {
    printJson({
      task: 'gta',
      mode: 'step',
      predictions: flags.predictions,
      data: dataset.root,
      ...scores,
      notes,
    });
    return;
  }
  process.stdout.write(
    `GTA step-by-step\nInstAcc ${f(scores.instAcc)}  ToolAcc ${f(scores.toolAcc)}  ArgAcc ${f(scores.argAcc)}  SummAcc ${f(scores.summAcc)}\ntool calls ${scores.toolCall} (errors ${scores.toolCallError})\n${notes.join('\n')}\n`,
  );
}

export function registerScoreCommands(program: Command): void {
  program
    .command('score')
    .description('re-score saved predictions without calling a model (appbench: official and corrected)')
    .argument('<task>', 'task name (apiary tasks lists them)')
    .option(
      '-p, --predictions <file>',
      'JSONL predictions or a harness results file (appbench: {id, reply}; other tasks: {id, output})',
    )
    .option('--results <file>', 'shortcuts: official result records (JSONL or a JSON array)')
    .option(
      '--data <dir>',
      'data folder (appbench: test_*.json or dev_*.json, default: pulled data; shortcuts: the official files; gta: the dataset folder)',
    )
    .option('--mode <mode>', 'appbench, shortcuts: official | corrected | both; gta: step | e2e', 'both')
    .option('--embeddings-base-url <url>', 'gta: embeddings endpoint for subjective answers and ImgGen')
    .option('--embeddings-model <id>', 'gta: the embeddings model (GTA uses all-mpnet-base-v2)')
    .option('--option <key=value>', 'task option, repeatable', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .option('--json', 'machine-readable report')
    .action(async (taskName: string, flags: ScoreFlags) => {
      if (taskName === 'shortcuts') return scoreShortcuts(flags);
      if (taskName === 'gta') return scoreGtaPredictions(flags);
      registerBuiltinTasks();
      const def = getTask(taskName);
      const predictions = flags.predictions ?? flags.results;
      if (!predictions) throw new ApiaryError('USAGE', 'pass --predictions FILE');
      if (def.name === 'appbench') scoreAppBenchPredictions({ ...flags, predictions });
      else await scoreTaskPredictions(def, { ...flags, predictions });
    });
}
