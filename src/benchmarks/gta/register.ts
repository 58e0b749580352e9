import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { modelTurns, type TurnTaker } from '../../agents/index.js';
import { bundledDataDir, indexCatalog } from '../../catalog/index.js';
import { appRegistry } from '../../exec/index.js';
import { ApiaryError, parsePyJson, pyGet, readJsonFile, sha256OfFiles } from '../../shared/index.js';
import type { Outcome, Task, TaskDefinition, TaskSample } from '../../tasks/index.js';
import { createSolver, defineSolver, type SolverDefinition, solverNamed } from '../../tasks/index.js';
import { embeddingsClientFromEnv, formatRecordingStats, ToolRecording } from '../../tools/index.js';
import type { GtaEmbedder } from './answer-match.js';
import { referenceKind } from './answer-match.js';
import { gtaCatalog } from './catalog.js';
import { type GtaRecord, loadGtaDataset } from './dataset.js';
import { type GtaE2eEnv, gtaE2eSolver } from './e2e-agent.js';
import { type GtaE2eRecordScore, scoreGtaE2eRecord } from './e2e-metrics.js';
import { gtaCacheDir } from './pull-gta.js';
import { reactConstraint } from './react-grammar.js';
import { GtaOutputSchema, GtaScoreSchema } from './record-schemas.js';
import { callStep, GTA_NO_ACTION } from './step-execute.js';
import { type GtaStepCounts, scoreGtaSteps } from './step-metrics.js';
import { type GtaStepModeEnv, gtaStepModeSolver } from './step-solver.js';
import { formatGtaReport, type GtaTaskReport, gtaTaskMetrics, summarizeGtaTask } from './task-report.js';
import { loadGtaToolMeta, recordTools } from './toolmeta.js';
import { disposeTools, type GtaToolsConfig, gtaToolHandlers, gtaTools } from './tools/registry.js';

/** Bumped when prompting or scoring changes the meaning of a result. */
const GTA_TASK_VERSION = '1';

/** One GTA query; category = objective, subjective or image-generation (its reference kind). */
export interface GtaSample extends TaskSample {
  readonly id: string;
  readonly category: 'objective' | 'subjective' | 'image-generation';
  readonly record: GtaRecord;
}

/** What a solver recorded for one sample (JSON; the steps as Python `json.dumps` text, floats exact). */
export interface GtaOutput {
  mode: 'step' | 'e2e';
  /** The predicted steps (step mode: one per gold assistant message; e2e: the whole run). */
  predictionJson: string;
  /** End to end: the final answer, why the loop stopped, turns taken, and where tool images went. */
  answer?: string | null;
  stopReason?: string;
  turns?: number;
  artefacts?: string;
}

/** The per-sample score (fits `GtaSampleScoreSchema` of the HTML reports). */
export interface GtaScore {
  step: GtaStepCounts | null;
  e2e: GtaE2eRecordScore | null;
  /** Step mode: subjective answer steps left at 0 for lack of an embeddings endpoint. */
  unscoredSubjective?: number;
}

const GtaOptionsSchema = z.object({
  mode: z
    .enum(['step', 'e2e'])
    .default('e2e')
    .describe(
      'step: step-by-step with the gold history and dummy tools (InstAcc, ToolAcc, ArgAcc, SummAcc); e2e: the agent runs the real tools (AnsAcc, tool F1)',
    ),
  maxTurn: z.number().int().min(1).default(10).describe('end to end: turns per query (Lagent max_turn)'),
  ids: z
    .array(z.string())
    .min(1)
    .nullable()
    .default(null)
    .describe('only these sample keys of dataset.json ("0", "17", …); null: all'),
});

type GtaMode = z.output<typeof GtaOptionsSchema>['mode'];

/** What GTA's solvers are built from: the mode (`--mode`) and what each mode runs on. */
export interface GtaSolverEnv extends GtaStepModeEnv, GtaE2eEnv {
  mode: GtaMode;
}

/** GTA's one solver argument: ReAct replies under Lagent's ReAct grammar (default) or not. */
const GtaSolverArgs = z.object({
  constrain: z
    .boolean()
    .optional()
    .describe(
      "ReAct: generate replies under Lagent's ReAct grammar where the model supports it (local GGUF models); default on",
    ),
});
type GtaSolverArgs = z.output<typeof GtaSolverArgs>;

/** A GTA solver: a registered solver plus the modes it refuses (checked before any data is read). */
interface GtaSolverDefinition extends SolverDefinition<GtaSolverArgs, GtaSolverEnv, GtaSample, GtaOutput> {
  readonly refuses: Partial<Record<GtaMode, string>>;
}

/** A GTA solver (its one argument: `constrain`). */
const gtaSolver = (
  spec: Omit<GtaSolverDefinition, 'args' | 'options' | 'refuses'>,
  refuses: GtaSolverDefinition['refuses'] = {},
): GtaSolverDefinition => ({ ...defineSolver({ ...spec, args: GtaSolverArgs }), refuses });

/** The ReAct constraint unless the solver's `constrain` is false. */
const reactConstrained = (args: GtaSolverArgs) =>
  args.constrain === false ? {} : { constraint: reactConstraint };

export const GTA_SOLVERS = {
  // ReAct in step mode is the step solver: the official step prompts are Lagent's ReAct prompts
  react: gtaSolver({
    name: 'react',
    description:
      "Lagent's ReAct protocol as GTA runs it (step mode: one turn per gold step; e2e: the loop over the real tools)",
    needsModel: true,
    create: (args, env) =>
      env.mode === 'step'
        ? gtaStepModeSolver(env, reactConstrained(args))
        : gtaE2eSolver(env, 'react', reactConstrained(args)),
  }),
  'native-tools': gtaSolver(
    {
      name: 'native-tools',
      description:
        'end to end only: the same tools through the provider tool calling (not comparable with the leaderboard)',
      needsModel: true,
      create: (_args, env) => gtaE2eSolver(env, 'native-tools'),
    },
    { step: 'gta: --mode step uses the official ReAct prompts; use --solver react (or step)' },
  ),
  step: gtaSolver(
    {
      name: 'step',
      description: 'step mode only: the official step-by-step prompts (same as react with --mode step)',
      needsModel: true,
      create: (args, env) => gtaStepModeSolver(env, reactConstrained(args)),
    },
    { e2e: 'gta: the step solver is for --mode step; end to end use react or native-tools' },
  ),
};

/** The official generation settings (OpenCompass default temperature, max_out_len 512). */
const GTA_SAMPLING = { temperature: 0.7, maxOutputTokens: 512 };

function categoryOf(record: GtaRecord): GtaSample['category'] {
  const kind = referenceKind(record.gtAnswer);
  return kind === 'objective' ? 'objective' : kind === 'subjective' ? 'subjective' : 'image-generation';
}

/** `<data>/toolmeta.json` when the data folder has one, else the bundled official file. */
function toolmetaPath(dataRoot: string): string {
  const own = join(dataRoot, 'toolmeta.json');
  return existsSync(own) ? own : join(bundledDataDir(), 'gta', 'toolmeta.json');
}

/** Step-mode scores of a failed sample: every gold step answered by an error step. */
function failedSteps(sample: GtaSample): ReturnType<typeof callStep>[] {
  return sample.record.dialogs
    .filter((m) => pyGet(m, 'role') === 'assistant')
    .map(() =>
      callStep(GTA_NO_ACTION, parsePyJson('{"text": ""}'), { type: 'API_ERROR', msg: 'no prediction' }),
    );
}

export const gtaDefinition: TaskDefinition<GtaTaskReport, GtaScore, GtaOutput> = {
  name: 'gta',
  description:
    'GTA: multimodal queries over 14 real tools; step-by-step (official prompts, InstAcc/ToolAcc/ArgAcc/SummAcc) or end to end (AnsAcc, tool F1)',
  version: GTA_TASK_VERSION,
  options: GtaOptionsSchema,
  solvers: GTA_SOLVERS,
  defaultSolver: 'react',
  sampling: GTA_SAMPLING,
  async load(ctx) {
    const { mode, maxTurn, ids } = GtaOptionsSchema.parse(ctx.options);
    const solverDef = solverNamed('gta', GTA_SOLVERS, ctx.solver);
    const refused = solverDef.refuses[mode];
    if (refused) throw new ApiaryError('USAGE', refused);
    const pulled = existsSync(join(gtaCacheDir(), 'dataset.json')) ? gtaCacheDir() : undefined;
    const dir = ctx.dataDir ?? process.env.APIARY_GTA_DATA ?? pulled;
    if (!dir)
      throw new ApiaryError(
        'NOT_FOUND',
        'gta: no dataset: pass --data DIR, the folder with dataset.json and image/ (or run `apiary data pull gta` first)',
      );
    const dataset = loadGtaDataset(dir);
    const metaFile = toolmetaPath(dataset.root);
    const toolmeta = loadGtaToolMeta(metaFile);
    const datasetFile = join(dataset.root, 'dataset.json');
    const perCategory = new Map<string, number>();
    const samples: GtaSample[] = [];
    for (const record of dataset.records) {
      recordTools(record.tools, toolmeta, { file: datasetFile, record: record.key }); // unknown tools fail early
      if (ids && !ids.includes(record.key)) continue;
      const category = categoryOf(record);
      const taken = perCategory.get(category) ?? 0;
      if (ctx.limit !== undefined && taken >= ctx.limit) continue;
      perCategory.set(category, taken + 1);
      samples.push({ id: record.key, category, record });
    }
    const unknown = (ids ?? []).filter((id) => !dataset.records.some((r) => r.key === id));
    if (unknown.length)
      throw new ApiaryError('USAGE', `gta option "ids": no sample ${unknown.join(', ')} in ${datasetFile}`);
    // no model is fine for re-scoring recorded outputs (`apiary score gta`); solving needs one
    const turns: TurnTaker = ctx.model
      ? modelTurns(ctx.model, {
          settings: ctx.sampling,
          ...(ctx.modelCalls ? { retry: ctx.modelCalls } : {}),
        })
      : () =>
          Promise.reject(new ApiaryError('USAGE', 'gta: every solver needs a model (--model, --base-url)'));
    const embedder: GtaEmbedder | undefined = embeddingsClientFromEnv(process.env, ctx.tools?.embeddings);
    const toolsOf = (record: GtaRecord) =>
      recordTools(record.tools, toolmeta, { file: datasetFile, record: record.key });

    // End to end: the tools every sample needs, built once (the OCR worker is shared), and a recording
    const needed = [...new Set(samples.flatMap((s) => s.record.tools))];
    // the CLI's tool flags build this config (src/cli/commands/tool-flags.ts); the core passes it through
    const toolsConfig = (ctx.tools?.config ?? {}) as GtaToolsConfig;
    const tools = mode === 'e2e' ? gtaTools(toolsConfig, needed) : new Map();
    const recording = ctx.tools?.recording
      ? new ToolRecording(resolve(ctx.tools.recording.dir), ctx.tools.recording.mode)
      : undefined;
    const catalog = indexCatalog(gtaCatalog(readJsonFile(metaFile), metaFile));
    // tool images: <run folder>/artefacts/sample-<key>/, or a temporary folder made on first use
    let artefactsRoot = ctx.runDir ? join(ctx.runDir, 'artefacts') : undefined;
    const artefacts = () => {
      artefactsRoot ??= mkdtempSync(join(tmpdir(), 'apiary-gta-'));
      return artefactsRoot;
    };
    const solver = createSolver(solverDef, ctx.solverOptions, {
      mode,
      root: dataset.root,
      toolmeta,
      turns,
      file: datasetFile,
      maxTurn,
      toolsFor: (sample) => {
        const outputDir = join(artefacts(), `sample-${sample.id}`);
        mkdirSync(outputDir, { recursive: true });
        const handlers = gtaToolHandlers(
          toolsOf(sample.record).map((m) => tools.get(m.name)!),
          // the model may name this sample's own input files and the images its tools drew, nothing else
          {
            outputDir,
            readable: sample.record.files.map((f) => f.path),
            ...(recording ? { recording } : {}),
          },
        );
        return {
          tools: toolsOf(sample.record),
          dispatch: { catalog, apps: appRegistry(handlers), timeoutMs: 120_000 },
          outputDir,
        };
      },
    });

    const task: Task<GtaSample, GtaOutput, GtaScore, GtaTaskReport> = {
      name: 'gta',
      version: GTA_TASK_VERSION,
      dataset: samples,
      solver,
      async scorer(sample, outcome: Outcome<GtaOutput>) {
        const golds = sample.record.dialogs.filter((m) => pyGet(m, 'role') === 'assistant');
        if (mode === 'step') {
          const predictions = outcome.output
            ? (parsePyJson(outcome.output.predictionJson) as ReturnType<typeof callStep>[])
            : failedSteps(sample);
          const s = await scoreGtaSteps(
            [{ predictions, golds, reference: sample.record.gtAnswer }],
            embedder,
          );
          return { step: s.counts, e2e: null, unscoredSubjective: s.unscoredSubjective };
        }
        const predictions = outcome.output ? (parsePyJson(outcome.output.predictionJson) as []) : [];
        const e2e = await scoreGtaE2eRecord(
          { predictions, golds: sample.record.dialogs.slice(1), reference: sample.record.gtAnswer },
          embedder,
        );
        return { step: null, e2e };
      },
      summarize: (scores) => summarizeGtaTask(scores),
      formatReport: (r) => formatGtaReport(r, modelLabel(ctx.model)),
    };
    const files = [datasetFile, metaFile];
    return {
      task,
      dataSource: { path: dataset.root, sha256: sha256OfFiles(files) },
      notes: [
        `data: ${dataset.root} (${samples.length} of ${dataset.records.length} queries, mode ${mode}${mode === 'e2e' && artefactsRoot ? `, tool images in ${artefactsRoot}` : ''})`,
        ...(embedder
          ? []
          : ['no embeddings endpoint: subjective answers and ImgGen similarity are left unscored (0)']),
      ],
      dispose: async () => {
        await disposeTools(tools);
      },
      // a replay's misses are their own count, never hidden among hits
      finalNotes: () =>
        recording
          ? [`tool recording ${recording.dir} (${recording.mode}): ${formatRecordingStats(recording.stats)}`]
          : [],
    };
  },
  summarize: (scores) => summarizeGtaTask(scores),
  formatReport: (r) => formatGtaReport(r),
  metrics: (r) => gtaTaskMetrics(r),
  outputSchema: GtaOutputSchema,
  scoreSchema: GtaScoreSchema,
};

function modelLabel(model: unknown): string | undefined {
  if (typeof model === 'string') return model;
  const id = (model as { modelId?: unknown } | undefined)?.modelId;
  return typeof id === 'string' ? id : undefined;
}
