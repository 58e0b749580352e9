import type { Command } from 'commander';
import { parseResultsText } from '../../harness/index.js';
import { defaultPluginRegistry, type PluginScorer, type ScoreFlags } from '../../plugins/index.js';
import { ApiaryError, checkJsonDepth, InputInvalidError, readTextFile } from '../../shared/index.js';
import {
  type AnyTask,
  getTask,
  parseOptionAssignments,
  routeOptions,
  type TaskDefinition,
  validateOptions,
} from '../../tasks/index.js';
import { printJson } from '../output.js';
import { scoreDescription } from '../plugin-help.js';
import { cliPlugins } from '../program.js';

/** A registered task by name (every plugin's tasks loaded first). */
async function taskNamed(name: string): Promise<TaskDefinition> {
  await defaultPluginRegistry.loadTasks();
  return getTask(name);
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
    scored.push({ epoch: p.epoch, at: position.get(p.id)!, score: await task.scorer(sample, outcome) });
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

/** `(a: x; b: y)`-style help: each scorer's words for one flag, after `task: `. */
function perTask(scorers: readonly PluginScorer[], slot: 'predictions' | 'results' | 'data'): string[] {
  return scorers.flatMap((s) => (s.help[slot] ? [`${s.task}: ${s.help[slot]}`] : []));
}

/** `a, b: official | corrected | both; c: step | e2e`: tasks with the same modes share a clause. */
function modesHelp(scorers: readonly PluginScorer[]): string {
  const byModes = new Map<string, string[]>();
  for (const s of scorers)
    if (s.help.mode) byModes.set(s.help.mode, [...(byModes.get(s.help.mode) ?? []), s.task]);
  return [...byModes].map(([modes, tasks]) => `${tasks.join(', ')}: ${modes}`).join('; ');
}

export function registerScoreCommands(program: Command): void {
  const plugins = cliPlugins();
  const scorers = plugins.flatMap((p) => p.scorers ?? []);
  const command = program
    .command('score')
    .description(scoreDescription(plugins))
    .argument('<task>', 'task name (apiary tasks lists them)')
    .option(
      '-p, --predictions <file>',
      `JSONL predictions or a harness results file (${[...perTask(scorers, 'predictions'), 'other tasks: {id, output}'].join('; ')})`,
    )
    .option('--results <file>', perTask(scorers, 'results').join('; '))
    .option('--data <dir>', `data folder (${perTask(scorers, 'data').join('; ')})`)
    .option('--mode <mode>', modesHelp(scorers), 'both');
  for (const s of scorers) for (const o of s.options ?? []) command.option(o.flags, o.description);
  command
    .option('--option <key=value>', 'task option, repeatable', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .option('--json', 'machine-readable report')
    .action(async (taskName: string, flags: ScoreFlags) => {
      const scorer = scorers.find((s) => s.task === taskName);
      if (scorer) {
        const score = await scorer.load();
        return score(flags, {
          scoreWithTask: async (f) => scoreTaskPredictions(await taskNamed(scorer.task), f),
        });
      }
      const def = await taskNamed(taskName);
      const predictions = flags.predictions ?? flags.results;
      if (!predictions) throw new ApiaryError('USAGE', 'pass --predictions FILE');
      await scoreTaskPredictions(def, { ...flags, predictions });
    });
}
