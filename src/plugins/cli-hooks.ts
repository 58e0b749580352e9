import type { Command } from 'commander';
import type { AppHandler } from '../apps/index.js';
import type { Catalog } from '../catalog/index.js';
import type { Plan } from '../plan/index.js';
import type {
  ApiDemo,
  DenseModel,
  FieldedCorpus,
  OpenedIndex,
  RankerModel,
  RetrievalQuery,
  Retriever,
  TaskDemo,
} from '../retrieval/index.js';
import type { SftPromptStyle, SftSource } from '../sft/index.js';
import type { ToolRecording } from '../tools/index.js';

/**
 * What a plugin adds to the core's own CLI commands. The core command keeps its name, flags and
 * flow; the words that name a benchmark (in help texts and messages) and the benchmark's own work
 * come from here. Words are plain data (the root help reads them without loading anything); the
 * work sits behind `load()`, imported only when the command runs.
 */

/** `apiary score <task>`: re-scores a saved predictions file of one task without a model. */
export interface PluginScorer {
  /** The task name `apiary score` is given. */
  readonly task: string;
  /** Help: what this task reads from each flag of `apiary score`, e.g. `data: 'the dataset folder'`. */
  readonly help: Readonly<Partial<Record<ScoreHelpSlot, string>>>;
  /** Flags only this task reads (`--embeddings-model`); they follow the shared ones in the help. */
  readonly options?: readonly PluginOption[];
  load(): Promise<PredictionScorer>;
}

/** The parts of `apiary score`'s help a scorer adds its words to (`summary`: the root help). */
export type ScoreHelpSlot = 'summary' | 'predictions' | 'results' | 'data' | 'mode';

/** One commander option of a plugin: `flags` as commander takes them (`--embeddings-model <id>`). */
export interface PluginOption {
  readonly flags: string;
  readonly description: string;
}

/** The flags of `apiary score`, as commander parsed them (task flags included). */
export interface ScoreFlags {
  predictions?: string;
  results?: string;
  data?: string;
  mode: string;
  option?: string[];
  json?: boolean;
  readonly [flag: string]: unknown;
}

/**
 * Scores the saved predictions `flags` name and prints the report. `scoreWithTask` is the core's
 * generic path (the task's own scorer over `{id, output}` lines or a results file), for a scorer
 * that handles only some files itself.
 */
export type PredictionScorer = (
  flags: ScoreFlags,
  core: { scoreWithTask(flags: ScoreFlags & { predictions: string }): Promise<void> },
) => Promise<void>;

/**
 * `apiary data build <name>`: makes a benchmark's data from sources of the user's own (AppBench
 * records from SGD dialogues). `load` gives what adds the flags and the action to the subcommand.
 */
export interface PluginDataBuild {
  readonly name: string;
  readonly description: string;
  load(): Promise<(command: Command) => void>;
}

/** `apiary data pull <name>`: fetches a benchmark's data from its official source. */
export interface PluginDownload {
  readonly name: string;
  /** The files `--sha256 FILE=HASH` may pin; the first is the help's example. */
  readonly files: readonly string[];
  /** Help of `--url` when the download takes one (where it comes from by default). */
  readonly url?: string;
  load(): Promise<DataPuller>;
}

export interface DataPullFlags {
  /** Target folder as typed (default: the user cache dir). */
  dir?: string;
  url?: string;
  force?: boolean;
  /** `--sha256` pins, checked against `files`: { FILE: lower-case hash }. */
  sha256: Readonly<Record<string, string>>;
  json?: boolean;
}

/** Downloads (or checks) the data and prints what it did. */
export type DataPuller = (flags: DataPullFlags) => Promise<void>;

/**
 * A set of executable tools (`apiary tools list|call`; `--catalog <catalog>` of `apiary ask` and
 * `apiary mcp serve`), each tool an app of the catalog `catalog`.
 */
export interface PluginToolset {
  /** The catalog describing the tools. */
  readonly catalog: string;
  /** Whose tools these are, in help and messages (`GTA` → "GTA's executable tools"). */
  readonly label: string;
  /** The catalog file in a data folder (`gta/toolmeta.json`), for help and messages. */
  readonly catalogFile: string;
  /** Tool names the help gives as examples. */
  readonly examples: readonly string[];
  load(): Promise<ToolsetRuntime>;
}

export interface ToolsetRuntime {
  /** Every tool: its name, category, and `ready` or what to configure. */
  list(): Array<{ name: string; category: string; status: string }>;
  /**
   * The tools (all, or `names`; an unknown name is NOT_FOUND) configured by `config` (the tool
   * settings of tool-flags.ts; none: from the environment).
   */
  open(config?: unknown, names?: readonly string[]): OpenedToolset;
}

export interface OpenedToolset {
  /** The tools as app handlers: outputs go to `outputDir`, file arguments may name `readable`. */
  handlers(options: {
    outputDir: string;
    readable: readonly string[];
    recording?: ToolRecording;
  }): AppHandler[];
  close(): Promise<void>;
}

/** Simulated apps: what `apiary run`, `ask` and `mcp serve` execute a catalog's APIs against. */
export interface PluginApps {
  /** Catalogs the apps serve by name; the first is the commands' default `--catalog`. */
  readonly catalogs: readonly string[];
  /** What holds the apps' data, in help and messages (`SGD database`). */
  readonly label: string;
  /**
   * The day the apps' data is set on (`YYYY-MM-DD`), when it is not today: `apiary ask` tells the
   * model this date, so "next Friday" lands on days the apps hold.
   */
  readonly currentDate?: string;
  load(): Promise<SimulatedApps>;
}

export interface SimulatedApps {
  /** Opens the apps' data (`--db FILE`, else the default); `source` says which (`bundled`). */
  open(db?: string): { source: string; handlers(catalog: Catalog): AppHandler[]; close(): void };
}

/** A plan text format of a plugin (`MetaBench call-list text`), for help and `plan show -f text`. */
export interface PluginPlanFormat {
  /** Its name in help: `MetaBench call-list text`. */
  readonly name: string;
  /** How its lines look, in help: `MetaBench text lines "App: [out = api(#k='v')]"`. */
  readonly example: string;
  load(): Promise<{ print(plan: Plan): string }>;
}

/** One top-level CLI command of a plugin, registered only when it runs (see src/cli/program.ts). */
export interface PluginCommand {
  readonly name: string;
  /** What follows the name in the root help: `[options]` when it has options, then its arguments. */
  readonly usage: string;
  readonly description: string;
  /** The core command it follows in the root help (default: after the core's). */
  readonly after?: string;
  register(): Promise<(program: Command) => void>;
}

/** A dataset or catalog `apiary retrieve` evaluates retrievers on, trains on, indexes or queries. */
export interface PluginRetrieval {
  /** Its name for `--dataset` and `--catalog`. */
  readonly name: string;
  /** Its name in help: `ToolBench`. */
  readonly label: string;
  /** The `apiary retrieve` subcommands that use it when none is named. */
  readonly defaultOf?: readonly ('eval' | 'index' | 'query')[];
  /** `retrieve eval --data`: what the data folder holds (`toolbench/tools.jsonl + toolbench/queries/`). */
  readonly data: string;
  /** `retrieve eval --files`: which query files (help after the label), when it has several. */
  readonly files?: string;
  /** Whether its requests can be composed into requests of several tools (`--compose-tools`). */
  readonly composesTools?: boolean;
  load(): Promise<RetrievalDataset>;
}

/** What `apiary retrieve` does with one dataset or catalog. */
export interface RetrievalDataset {
  /** `retrieve eval --dataset NAME`: scores the retriever on each query set through `ctx.score`. */
  evaluate(ctx: RetrievalEvalContext): Promise<void>;
  /** `retrieve index build --catalog NAME`: (re)builds the index file of the catalog. */
  buildIndex(ctx: {
    data?: string;
    /** The index file (default: the user cache folder). */
    path?: string;
    quiet: boolean;
    /** Recorded in the file (`{model: FILE}`). */
    info: Record<string, unknown>;
    /** Ranker weights and dense vectors the file keeps. */
    models: { ranker?: RankerModel; dense?: DenseModel };
  }): OpenedIndex;
  /** `retrieve query --catalog NAME`: its index (when `index` is given), corpus, and API names and details. */
  queryCorpus(ctx: { data?: string; index?: { path?: string; quiet: boolean } }): {
    opened?: OpenedIndex;
    corpus(): FieldedCorpus;
    labels(): string[];
    details(): string[];
  };
  /** Registers `apiary retrieve train` (a dataset with training requests). */
  registerTrain?(retrieve: Command): void;
}

export interface RetrievalEvalContext {
  /** `--data`, as typed. */
  data?: string;
  /** `--files`: the query files to score (default: every one). */
  files?: readonly string[];
  /** `--compose-tools`: requests of this many tools (1: the files as they are). */
  composeTools: number;
  /** Open (or build) the index file when the retriever uses one. */
  index?: { path?: string; quiet: boolean };
  /** A progress line (stderr). */
  log(message: string): void;
  /** The retriever of `--retriever` on `corpus`, with what `opened` holds. */
  retriever(corpus: FieldedCorpus, opened: OpenedIndex | undefined): Promise<Retriever>;
  /** Scores `queries` of one file (`total`: its requests before any was left out). */
  score(file: string, queries: RetrievalQuery[], total: number, retriever: Retriever): Promise<void>;
  /** The dense encoder's info of the index file (reported when no --model gives one). */
  denseInfo(info: Record<string, unknown> | undefined): void;
}

/** Gold plans of a benchmark: `apiary sft build --source <name>`, and `apiary ask --demos DIR`. */
export interface PluginGoldPlans {
  /** Its name for `sft build --source`. */
  readonly name: string;
  /** Its name in help and messages: `AppBench`. */
  readonly label: string;
  /** The catalog the plans are written against (the default `--catalog`). */
  readonly catalog: string;
  /** What a data folder holds, in help: `test_*.json or dev_*.json`. */
  readonly files: string;
  /** Its prompt styles for `sft build --style`, the default first (the agents' prompt). */
  readonly styles: readonly string[];
  load(): Promise<GoldPlanSource>;
}

export interface GoldPlanSource {
  /** The date the benchmark's prompts give as today. */
  readonly currentDate: string;
  /** The prompt styles `PluginGoldPlans.styles` names. */
  readonly styles: Readonly<Record<string, SftPromptStyle>>;
  /** The gold tasks of the data folder `dir`, checked against `catalog`. */
  tasks(dir: string, catalog: Catalog): SftSource[];
  /** The demo selector's knowledge base (task demos, API demos) made of `tasks`. */
  demoKnowledgeBase(
    tasks: readonly SftSource[],
    catalog: Catalog,
  ): { taskDemos: TaskDemo[]; apiDemos: ApiDemo[] };
}
