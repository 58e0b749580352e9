import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { resolveDataDir } from '../../catalog/index.js';
import {
  buildRetriever,
  loadDenseModel,
  loadTrainedModel,
  loadWordVectors,
  RETRIEVER_KINDS,
  type Retriever,
  type RetrieverKind,
} from '../../retrieval/index.js';
import { sha256OfFiles } from '../../shared/index.js';
import type { Task, TaskDefinition, TaskSample } from '../../tasks/index.js';
import {
  createSolver,
  defineSolver,
  type Solver,
  type SolverDefinition,
  solverNamed,
  withOutput,
} from '../../tasks/index.js';
import { findCachedToolBenchIndex } from './index-file.js';
import {
  ndcgFromSummary,
  type RankingSummary,
  recallFromSummary,
  summarizeRanking,
} from './ranking-summary.js';
import { ToolBenchQueryScoreSchema, ToolBenchRetrievalOutputSchema } from './record-schemas.js';
import { loadToolBenchEvalSuite, type ToolBenchSuite, toolBenchCorpus } from './suite.js';

/** Bump when the corpus mapping or the metrics change what a recorded result means. */
const TOOLBENCH_RETRIEVAL_TASK_VERSION = '1';

/** One ToolBench test query; `category` is its query file (group), e.g. `G1_tool`. */
interface ToolBenchQuerySample extends TaskSample {
  readonly category: string;
  readonly text: string;
  /** Corpus indices of the relevant APIs. */
  readonly relevant: readonly number[];
}

export interface ToolBenchRetrievalOutput extends RankingSummary {
  /** `category/tool/api` of each document in `top`, for reading. */
  apis: string[];
}

/** Fractions in [0, 1] for one query. */
export interface ToolBenchQueryScore {
  id: string;
  group: string;
  ndcg1: number;
  ndcg3: number;
  ndcg5: number;
  recall5: number;
  recall10: number;
}

export interface RetrievalMeans {
  queries: number;
  /** Macro means ×100 (percent), as ToolBench logs them and `apiary retrieve eval` prints them. */
  ndcg1: number;
  ndcg3: number;
  ndcg5: number;
  recall5: number;
  recall10: number;
}

export interface ToolBenchRetrievalReport {
  groups: Array<{ group: string } & RetrievalMeans>;
  all: RetrievalMeans;
}

const METRICS = ['ndcg1', 'ndcg3', 'ndcg5', 'recall5', 'recall10'] as const;

function means(scores: readonly ToolBenchQueryScore[]): RetrievalMeans {
  const mean = (k: (typeof METRICS)[number]) =>
    scores.length ? (100 * scores.reduce((a, s) => a + s[k], 0)) / scores.length : 0;
  return {
    queries: scores.length,
    ndcg1: mean('ndcg1'),
    ndcg3: mean('ndcg3'),
    ndcg5: mean('ndcg5'),
    recall5: mean('recall5'),
    recall10: mean('recall10'),
  };
}

function summarizeToolBenchRetrieval(scores: readonly ToolBenchQueryScore[]): ToolBenchRetrievalReport {
  const groups = [...new Set(scores.map((s) => s.group))];
  return {
    groups: groups.map((group) => ({ group, ...means(scores.filter((s) => s.group === group)) })),
    all: means(scores),
  };
}

function formatToolBenchRetrievalReport(report: ToolBenchRetrievalReport): string {
  const fmt = (x: number) => x.toFixed(2).padStart(6);
  const row = (name: string, m: RetrievalMeans) =>
    `${name.padEnd(18)} ${String(m.queries).padStart(7)} ${fmt(m.ndcg1)} ${fmt(m.ndcg3)} ${fmt(m.ndcg5)} ${fmt(m.recall5)} ${fmt(m.recall10)}`;
  return [
    'ToolBench retrieval: metrics ×100',
    'group              queries NDCG@1 NDCG@3 NDCG@5    R@5   R@10',
    ...report.groups.map((g) => row(g.group, g)),
    row('all', report.all),
  ].join('\n');
}

function scoreToolBenchQuery(
  sample: ToolBenchQuerySample,
  output: RankingSummary | null,
): ToolBenchQueryScore {
  const n = new Set(sample.relevant).size;
  const at = (f: (r: RankingSummary) => number) => (output ? f(output) : 0);
  return {
    id: sample.id,
    group: sample.category,
    ndcg1: at((r) => ndcgFromSummary(r, n, 1)),
    ndcg3: at((r) => ndcgFromSummary(r, n, 3)),
    ndcg5: at((r) => ndcgFromSummary(r, n, 5)),
    recall5: at((r) => recallFromSummary(r, sample.relevant, 5)),
    recall10: at((r) => recallFromSummary(r, sample.relevant, 10)),
  };
}

/** The kinds an index file serves. */
const LEXICAL_KINDS: ReadonlySet<RetrieverKind> = new Set([
  'bm25-plain',
  'bm25',
  'bm25-tool',
  'bm25-fields',
  'ranked',
]);

/** The retrievers that read a trained model file. */
const NEEDS_MODEL_FILE: ReadonlySet<RetrieverKind> = new Set([
  'trained',
  'trained-hybrid',
  'trained-fusion',
  'ranked',
  'dense',
  'dense-hybrid',
]);

const ModelFileOptions = z.object({
  modelFile: z
    .string()
    .min(1)
    .describe(
      'trained model file (from `apiary retrieve train`; a dense encoder file for dense, dense-hybrid)',
    ),
});

/** What a retrieval solver is built from: the loaded suite and where its data lives. */
export interface ToolBenchRetrievalEnv {
  suite: ToolBenchSuite;
  dataDir: string;
}

/** The retriever of `kind` over the suite's corpus (built on first use, once per run). */
function retrieverOf(kind: RetrieverKind, modelFile: string | undefined, env: ToolBenchRetrievalEnv) {
  let model: ReturnType<typeof loadTrainedModel> | undefined;
  return () => {
    // the lexical kinds and `ranked` use the cached index file when one is current (no build here)
    const cached = LEXICAL_KINDS.has(kind) ? findCachedToolBenchIndex(env.dataDir) : undefined;
    return buildRetriever(kind, toolBenchCorpus(env.suite), {
      table: () => loadWordVectors().table,
      ...(modelFile ? { model: () => (model ??= loadTrainedModel(modelFile)) } : {}),
      // the dense kinds read a dense encoder file (`retrieve train --retriever dense`)
      ...(modelFile ? { dense: () => ({ model: loadDenseModel(modelFile) }) } : {}),
      ...(cached ? { indexes: cached.indexes, ...(cached.plain ? { plain: cached.plain } : {}) } : {}),
    });
  };
}

/** One solver per retriever kind of `apiary retrieve eval`. */
export const TOOLBENCH_RETRIEVAL_SOLVERS: Record<
  string,
  SolverDefinition<
    { modelFile?: string },
    ToolBenchRetrievalEnv,
    ToolBenchQuerySample,
    ToolBenchRetrievalOutput
  >
> = Object.fromEntries(
  RETRIEVER_KINDS.map((kind) => [
    kind,
    defineSolver({
      name: kind,
      description: `the ${kind} retriever scores every API of the corpus`,
      args: NEEDS_MODEL_FILE.has(kind) ? ModelFileOptions : z.object({}),
      needsModel: false,
      create: ({ modelFile }: { modelFile?: string }, env: ToolBenchRetrievalEnv) =>
        rankingSolver(env.suite, retrieverOf(kind, modelFile, env)),
    }),
  ]),
);

const ToolBenchRetrievalOptionsSchema = z.object({
  groups: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      'query files of <data>/toolbench/queries/ (names without .json; default every file there, the G1 files first)',
    ),
});

type ToolBenchRetrievalTask = Task<
  ToolBenchQuerySample,
  ToolBenchRetrievalOutput,
  ToolBenchQueryScore,
  ToolBenchRetrievalReport
>;

/** The queries of a loaded suite as samples, group by group (first `limit` of each). */
function toolBenchQuerySamples(suite: ToolBenchSuite, limit?: number): ToolBenchQuerySample[] {
  return [...suite.sets].flatMap(([group, set]) =>
    set.queries
      .slice(0, limit ?? set.queries.length)
      .map((q) => ({ id: q.id, category: group, text: q.text, relevant: q.relevant })),
  );
}

/**
 * The retrieval solver: ranks the whole corpus for the sample's query with one retriever (built
 * once, on first use) and records the top of the ranking.
 */
function rankingSolver(
  suite: ToolBenchSuite,
  retriever: () => Promise<Retriever>,
): Solver<ToolBenchQuerySample, ToolBenchRetrievalOutput> {
  let built: Promise<Retriever> | undefined;
  return async (state, ctx) => {
    const { sample } = state;
    const t0 = performance.now();
    built ??= retriever();
    const scores = await (await built).scoreAll(sample.text);
    const summary = summarizeRanking(scores, sample.relevant);
    const apis = summary.top.map((d) => {
      const doc = suite.docs[d];
      return doc ? `${doc.category}/${doc.tool}/${doc.api}` : String(d);
    });
    // no model and no calls: the ranking is the answer (its top APIs, one per line)
    ctx.events?.write({
      type: 'stop',
      step: 0,
      reason: 'final',
      answer: apis.join('\n'),
      usage: { inputTokens: 0, outputTokens: 0 },
      totalMs: performance.now() - t0,
    });
    return withOutput(state, { output: { ...summary, apis }, modelCalls: 0 });
  };
}

export const toolBenchRetrievalDefinition: TaskDefinition<
  ToolBenchRetrievalReport,
  ToolBenchQueryScore,
  ToolBenchRetrievalOutput
> = {
  name: 'toolbench-retrieval',
  description:
    'ToolBench API retrieval: rank all 46,802 APIs per query; NDCG@1/3/5 (scikit-learn ties), Recall@5/10',
  version: TOOLBENCH_RETRIEVAL_TASK_VERSION,
  options: ToolBenchRetrievalOptionsSchema,
  solvers: TOOLBENCH_RETRIEVAL_SOLVERS,
  defaultSolver: 'bm25',
  async load(ctx) {
    const { groups } = ToolBenchRetrievalOptionsSchema.parse(ctx.options);
    const dataDir = resolveDataDir(ctx.dataDir);
    const suite = loadToolBenchEvalSuite(dataDir, groups);
    const samples = toolBenchQuerySamples(suite, ctx.limit);
    const queryFiles = [...suite.sets.keys()].map((g) => join(dataDir, 'toolbench', 'queries', `${g}.json`));
    const files = [join(dataDir, 'toolbench', 'tools.jsonl'), ...queryFiles.filter((f) => existsSync(f))];
    const solver = createSolver(
      solverNamed('toolbench-retrieval', TOOLBENCH_RETRIEVAL_SOLVERS, ctx.solver),
      ctx.solverOptions,
      { suite, dataDir },
    );
    const task: ToolBenchRetrievalTask = {
      name: 'toolbench-retrieval',
      version: TOOLBENCH_RETRIEVAL_TASK_VERSION,
      dataset: samples,
      solver,
      scorer: (sample, outcome) => scoreToolBenchQuery(sample, outcome.output),
      summarize: summarizeToolBenchRetrieval,
      formatReport: formatToolBenchRetrievalReport,
    };
    const dropped = [...suite.sets.values()].reduce((a, s) => a + s.dropped.length, 0);
    return {
      task,
      dataSource: { path: join(dataDir, 'toolbench'), sha256: sha256OfFiles(files) },
      notes: [
        `data: ${join(dataDir, 'toolbench')} (${suite.docs.length} APIs; ${samples.length} queries in ${[
          ...suite.sets.keys(),
        ].join(', ')}${dropped ? `; ${dropped} queries dropped: a gold API is not in the corpus` : ''})`,
      ],
    };
  },
  summarize: summarizeToolBenchRetrieval,
  formatReport: formatToolBenchRetrievalReport,
  metrics: (r) => ({
    ndcg1: r.all.ndcg1,
    ndcg3: r.all.ndcg3,
    ndcg5: r.all.ndcg5,
    recall5: r.all.recall5,
    recall10: r.all.recall10,
  }),
  outputSchema: ToolBenchRetrievalOutputSchema,
  scoreSchema: ToolBenchQueryScoreSchema,
};
