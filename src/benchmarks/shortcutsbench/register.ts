import { z } from 'zod';
import { modelTurns } from '../../agents/index.js';
import { ApiaryError, sha256OfFiles } from '../../shared/index.js';
import type { Outcome, Task, TaskDefinition, TaskLoadContext, TaskSample } from '../../tasks/index.js';
import { createSolver, defineSolver, solverNamed } from '../../tasks/index.js';
import { shortcutsActionConstraint } from './action-grammar.js';
import { loadShortcutsApis } from './api-files.js';
import { baselineStepper } from './baseline.js';
import {
  loadCategories,
  loadQueries,
  loadSignificantParams,
  requireShortcutsFiles,
  type ShortcutsFileRole,
  shortcutsFilePath,
} from './data-files.js';
import { streamGoldShortcuts } from './gold-stream.js';
import { dumpsPythonJson, type Json, type JsonObject } from './json-value.js';
import { type Level, levelOf, shortcutLength } from './length.js';
import { ShortcutRunSchema, ShortcutScoreSchema } from './record-schemas.js';
import { formatShortcutsReport } from './report-format.js';
import { parseResultRecords } from './result-records.js';
import { type ShortcutScore, scoreResultRecord } from './score-record.js';
import { folderOfficialFiles, folderSignificantParams, readShortcutFolder } from './shortcut-folder.js';
import { type ShortcutsReport, summarizeShortcuts } from './summary.js';
import { modelStepper, type ShortcutRun, type ShortcutsApis, teacherForcedSolver } from './teacher-forced.js';

/** Bumped when prompting or scoring changes the meaning of a result. */
const SHORTCUTS_TASK_VERSION = '1';

/** One benchmark item: a gold shortcut with its query (the id is its URL). */
export interface ShortcutSample extends TaskSample {
  readonly id: string;
  readonly category?: string;
  readonly query: string;
  readonly actions: readonly Json[];
  readonly level: Level;
}

export interface ShortcutsBothModes {
  official: ShortcutsReport;
  corrected: ShortcutsReport;
}

const ShortcutsOptionsSchema = z.object({
  levels: z
    .array(z.number().int().min(1).max(4))
    .min(1)
    .nullable()
    .default(null)
    .describe('levels to run (1..4, from the gold longest-branch length); null: all'),
  shortcuts: z
    .string()
    .min(1)
    .nullable()
    .default(null)
    .describe(
      'a folder of your own .shortcut/.plist files, each with NAME.query.txt, instead of the official gold and queries',
    ),
});

/** What ShortcutsBench's solvers are built from: the run's settings and the API files. */
interface ShortcutsSolverEnv {
  ctx: TaskLoadContext;
  apis: ShortcutsApis;
}

export const SHORTCUTS_SOLVERS = {
  'teacher-forced': defineSolver({
    name: 'teacher-forced',
    description: 'the paper protocol: one model call per gold action, gold history, JSON action replies',
    args: z.object({
      constrain: z
        .boolean()
        .optional()
        .describe(
          'generate each reply under the JSON-action grammar of the candidate APIs where the model supports it (local GGUF models); default on',
        ),
    }),
    needsModel: true,
    create: ({ constrain }, { ctx, apis }: ShortcutsSolverEnv) => {
      if (!ctx.model)
        throw new ApiaryError(
          'USAGE',
          'the teacher-forced solver needs a model: pass --model and --base-url, or --solver baseline',
        );
      const turns = modelTurns(ctx.model, {
        settings: ctx.sampling,
        ...(ctx.modelCalls ? { retry: ctx.modelCalls } : {}),
      });
      const stepper = modelStepper(
        turns,
        constrain === false ? {} : { constraint: shortcutsActionConstraint(apis) },
      );
      return teacherForcedSolver(apis, stepper, { countModelCalls: true });
    },
  }),
  baseline: defineSolver({
    name: 'baseline',
    description: 'no LLM: BM25 over the candidate descriptions picks the API, rules fill the parameters',
    args: z.object({}),
    needsModel: false,
    create: (_args, { apis }: ShortcutsSolverEnv) =>
      teacherForcedSolver(apis, baselineStepper(apis), { countModelCalls: false }),
  }),
};

/** The files `apiary eval shortcuts --data DIR` reads. */
const OFFICIAL_ROLES: readonly ShortcutsFileRole[] = [
  'gold',
  'queries',
  'checkIntersection',
  'categories',
  'apiInfo',
  'paraTypes',
];

/** An error outcome scores as if every evaluated action had an unparseable reply (counted wrong). */
function failedRecordLine(sample: ShortcutSample): string {
  return dumpsPythonJson({
    URL: sample.id,
    api_names: [],
    aseqs: [...sample.actions] as Json[],
    bseqs: sample.actions.map(() => ({ state: 'json_error', aseq: null })),
  });
}

export const shortcutsDefinition: TaskDefinition<ShortcutsBothModes, ShortcutScore, ShortcutRun> = {
  name: 'shortcuts',
  description:
    'ShortcutsBench: teacher-forced API calls per gold action, scored official + corrected (API, parameters, inputs)',
  version: SHORTCUTS_TASK_VERSION,
  options: ShortcutsOptionsSchema,
  solvers: SHORTCUTS_SOLVERS,
  defaultSolver: 'teacher-forced',
  noModelSolver: 'baseline',
  async load(ctx) {
    const { levels, shortcuts } = ShortcutsOptionsSchema.parse(ctx.options);
    const dir = ctx.dataDir ?? process.env.APIARY_DATA;
    // NOT_FOUND rather than USAGE: the data is missing (so `eval all` skips the task, naming why)
    if (!dir)
      throw new ApiaryError(
        'NOT_FOUND',
        'shortcuts: pass --data DIR, the folder with the ShortcutsBench files (the gold, query and check-intersection ' +
          'files, generated_success_categories.json, all_api2info.json, all_api2paraname2paratype.json; with ' +
          '--shortcuts FOLDER only the last two)',
      );
    requireShortcutsFiles(dir, shortcuts ? ['apiInfo', 'paraTypes'] : OFFICIAL_ROLES);
    const apis = loadShortcutsApis(dir);
    const data = shortcuts ? folderData(shortcuts, apis) : await officialData(dir);
    const { gold, queries, significant, categories } = data;
    const perLevel = new Map<number, number>();
    const samples: ShortcutSample[] = [];
    for (const [url, query] of queries) {
      const record = gold.get(url);
      if (!record) continue;
      const actions = (record.shortcut as JsonObject).WFWorkflowActions as Json[];
      const level = levelOf(shortcutLength(actions).length);
      if (levels && !levels.includes(level)) continue;
      const taken = perLevel.get(level) ?? 0;
      if (ctx.limit !== undefined && taken >= ctx.limit) continue;
      perLevel.set(level, taken + 1);
      const category = categories.get(url);
      samples.push({ id: url, ...(category ? { category } : {}), query, actions, level });
    }
    const solver = createSolver(solverNamed('shortcuts', SHORTCUTS_SOLVERS, ctx.solver), ctx.solverOptions, {
      ctx,
      apis,
    });
    const task: Task<ShortcutSample, ShortcutRun, ShortcutScore, ShortcutsBothModes> = {
      name: 'shortcuts',
      version: SHORTCUTS_TASK_VERSION,
      dataset: samples,
      solver,
      scorer(sample, outcome: Outcome<ShortcutRun>) {
        const line = outcome.output ? outcome.output.resultLine : failedRecordLine(sample);
        const [record] = parseResultRecords(line, sample.id);
        return scoreResultRecord(record!, significant, (u) => categories.get(u));
      },
      summarize: (scores) => summarizeBoth(scores),
      formatReport: (r) => formatBoth(r),
    };
    const files = [
      ...(['apiInfo', 'paraTypes'] as const).map((role) => shortcutsFilePath(dir, role)),
      ...data.files,
    ];
    return {
      task,
      dataSource: { path: shortcuts ?? dir, sha256: sha256OfFiles(files) },
      notes: [
        `data: ${shortcuts ? `${shortcuts} (your shortcuts; APIs from ${dir})` : dir} (${samples.length} shortcuts${levels ? ` at levels ${levels.join(',')}` : ''}${ctx.limit !== undefined ? `, at most ${ctx.limit} per level` : ''})`,
      ],
    };
  },
  summarize: (scores) => summarizeBoth(scores),
  formatReport: (r) => formatBoth(r),
  metrics: (r) => {
    const out: Record<string, number> = {};
    for (const mode of ['official', 'corrected'] as const)
      for (const m of ['api', 'primitive', 'previousOutput', 'systemInput'] as const) {
        const a = r[mode][m].overall.accuracy;
        if (typeof a === 'number') out[`${mode}.${m}`] = a;
      }
    return out;
  },
  outputSchema: ShortcutRunSchema,
  scoreSchema: ShortcutScoreSchema,
};

interface ShortcutsData {
  gold: Map<string, JsonObject>;
  queries: Map<string, string>;
  significant: Map<string, Json>;
  categories: Map<string, string>;
  /** The files the data came from (hashed into the run spec). */
  files: string[];
}

/** The official files of `dir`; the gold file is streamed, keeping only the queried shortcuts. */
async function officialData(dir: string): Promise<ShortcutsData> {
  const queries = loadQueries(dir);
  return {
    queries,
    gold: await streamGoldShortcuts(dir, (url) => queries.has(url)),
    significant: loadSignificantParams(dir),
    categories: loadCategories(dir),
    files: (['gold', 'queries', 'checkIntersection', 'categories'] as const).map((r) =>
      shortcutsFilePath(dir, r),
    ),
  };
}

/** A folder of the user's shortcuts, as records in the official formats (no categories). */
function folderData(folder: string, apis: ShortcutsApis): ShortcutsData {
  const items = readShortcutFolder(folder);
  const official = folderOfficialFiles(items, apis.paraTypes);
  return {
    gold: new Map(official.gold.map((r) => [r.URL as string, r])),
    queries: new Map(items.map((s) => [s.url, s.query])),
    significant: folderSignificantParams(official),
    categories: new Map(),
    files: items.flatMap((s) => [s.file, s.sidecar]),
  };
}

function summarizeBoth(scores: readonly ShortcutScore[]): ShortcutsBothModes {
  return {
    official: summarizeShortcuts(scores, 'official'),
    corrected: summarizeShortcuts(scores, 'corrected'),
  };
}
function formatBoth(r: ShortcutsBothModes): string {
  return `${formatShortcutsReport(r.official)}\n\n${formatShortcutsReport(r.corrected)}`;
}
