/**
 * Apiary's main entry: the names a newcomer needs — the agent loop, calling an API, catalogs,
 * plans, models, tasks and runs, plugins, errors. At most 150 names (src/architecture.test.ts
 * counts them); each is also exported by its domain's subpath (`apiary/agents`, `apiary/exec`,
 * `apiary/catalog`, `apiary/plan`, `apiary/apps`, `apiary/models`, `apiary/retrieval`,
 * `apiary/tasks`, `apiary/harness`, `apiary/plugins`, `apiary/reports`, `apiary/viewer`,
 * `apiary/mcp`, `apiary/shared`), which holds the rest of that domain. Each benchmark is its own
 * subpath (`apiary/appbench`, `apiary/gta`, `apiary/shortcutsbench`, `apiary/toolbench`); test
 * helpers are in `apiary/test`. See docs/architecture.md.
 * @module
 */

import { registerBuiltinPlugins } from './benchmarks/builtin.js';

// The agent loop: one loop, a protocol for the model's replies, tools from a catalog
export {
  type AgentBudget,
  type AgentProtocol,
  type AgentResult,
  type AgentTool,
  apiAsTool,
  baselineAgent,
  catalogToolset,
  type Decision,
  flatAgent,
  freeTextProtocol,
  hierarchicalAgent,
  jsonActionProtocol,
  modelTurns,
  nativeToolsProtocol,
  type Observation,
  type PlanningAgent,
  type PlanRequest,
  type PlanResult,
  type ProposedCall,
  planLinesProtocol,
  type RunAgentOptions,
  reactProtocol,
  runAgent,
  type StopReason,
  type ToolLoopAgentOptions,
  type Toolset,
  type TurnReply,
  type TurnRequest,
  type TurnTaker,
  toAiSdkTools,
  toolLoopAgent,
} from './agents/index.js';
// An app: the handler that answers a call
export type { AppCallContext, AppCallResult, AppHandler } from './apps/index.js';
// The benchmarks apiary ships with (src/benchmarks/builtin.ts, the one list)
export { BUILTIN_PLUGINS, registerBuiltinPlugins } from './benchmarks/builtin.js';
// Catalogs: apps and APIs, loaded, indexed, rendered for a prompt, turned into tool definitions
export {
  type Api,
  type App,
  type Catalog,
  type CatalogIndex,
  CatalogSchema,
  indexCatalog,
  type LoadCatalogOptions,
  loadCatalog,
  type Parameter,
  renderCatalogText,
  toOpenAiTools,
} from './catalog/index.js';
// Calling an API: one call (fixed order of checks, typed outcomes, never throws), or a whole plan
export {
  type AppRegistry,
  type ApprovalHandler,
  appRegistry,
  autoApprove,
  type CallError,
  type CallErrorCode,
  type CallOutcome,
  type CallRequest,
  type DispatchContext,
  denyAll,
  dispatchCall,
  type ExecuteOptions,
  type ExecutionResult,
  executePlan,
  fakeHandlers,
  type RunStatus,
  type StepResult,
} from './exec/index.js';
// Running a task: evaluate(recipe) (the one way, as the CLI runs it), results files, run specs, summaries
export {
  type EvaluateOptions,
  type EvaluateResult,
  evaluate,
  type ResultsFileContents,
  type RunEvalOptions,
  type RunEvalResult,
  type RunSpec,
  type RunSummary,
  readResultsFile,
  runEval,
  type SampleLine,
  summarizeResults,
  type TaskRecipeInput,
} from './harness/index.js';
// Models: an OpenAI-compatible endpoint resolved to an AI SDK model, with sampling and a cache
export {
  checkModelEndpoint,
  createResponseCache,
  type ResolvedModel,
  type ResolveModelOptions,
  type ResponseCache,
  resolveModel,
  type SamplingSettings,
  type TokenUsage,
} from './models/index.js';
// Plans: API calls with data dependencies, validated against a catalog, analysed, printed
export {
  type ArgValue,
  analyzePlan,
  ask,
  literal,
  type Plan,
  type PlanAnalysis,
  type PlanIssue,
  type PlanIssueCode,
  PlanParseError,
  PlanSchema,
  parsePlanJson,
  parsePlanText,
  printPlanJson,
  printPlanText,
  readPlanFile,
  ref,
  type Step,
  system,
  validatePlan,
} from './plan/index.js';
// Plugins: how a benchmark (built in or your own) adds tasks, catalogs and commands
export {
  type BenchmarkPlugin,
  defaultPluginRegistry,
  listPlugins,
  type PluginCommand,
  PluginRegistry,
  type PluginTask,
  registerPlugin,
} from './plugins/index.js';
// Reports and the run viewer
export { buildHtmlReport } from './reports/index.js';
// Retrieval: which APIs a request needs
export {
  Bm25Index,
  buildRetriever,
  catalogCorpus,
  type RetrievalHit,
  type Retriever,
  type RetrieverKind,
  tokenize,
} from './retrieval/index.js';
// Errors: one base class and a code for programs
export {
  ApiaryError,
  type ErrorCode,
  InputInvalidError,
  type InputLocation,
  NotFoundError,
} from './shared/index.js';
// Tasks: the task contract, solvers as values, and the registry `apiary eval` reads
export {
  type AnyTask,
  chain,
  createSolver,
  defaultTaskRegistry,
  defineSolver,
  getTask,
  listTasks,
  registerTask,
  type Solver,
  type SolverDefinition,
  type SolverState,
  type Task,
  type TaskDefinition,
  TaskRegistry,
} from './tasks/index.js';
export { type RunningViewer, startViewer } from './viewer/index.js';

// Importing the package makes the built-in benchmarks known to the registries (manifests only:
// each loads its code when one of its tasks, catalogs or commands is used).
registerBuiltinPlugins();
