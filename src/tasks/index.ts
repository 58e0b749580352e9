/**
 * Benchmarks as tasks: the task contract the harness runs, AppBench (data, scoring, the
 * task) and ToolBench retrieval (suite, training, evaluation). Subpath `apiary/tasks`.
 * @module
 */

// AppBench / MetaBench and ToolBench retrieval (curated sub-entries, gathered as they are)
export * from '../benchmarks/appbench/index.js';
export * from '../benchmarks/gta/index.js';
export * from '../benchmarks/shortcutsbench/index.js';
export * from '../benchmarks/toolbench/index.js';
// The registry: tasks by name, with their options and solvers
export {
  defaultTaskRegistry,
  getSolver,
  getTask,
  listTasks,
  registerTask,
  TaskRegistry,
} from './registry.js';
// Solvers as values: registered, with typed arguments, composable
export {
  chain,
  createSolver,
  defineSolver,
  type Scorer,
  type Solver,
  type SolverDefinition,
  type SolverState,
  sampleSolver,
  solverNamed,
  solveSample,
  withOutput,
  withStore,
} from './solver.js';
// The task contract the harness runs
export type {
  AnyTask,
  LoadedTask,
  ModelCallLimits,
  OptionsSchema,
  Outcome,
  SolveContext,
  Solved,
  Task,
  TaskDefinition,
  TaskLoadContext,
  TaskSample,
  TaskToolSettings,
  TaskUsage,
  ToolsConfig,
} from './task.js';
export { RECORD_MODES } from './task.js';
export {
  describeOptions,
  type OptionInfo,
  parseOptionAssignments,
  routeOptions,
  validateOptions,
} from './task-options.js';
