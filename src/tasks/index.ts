/**
 * The task contract the harness runs, its options and the registry of tasks by name. Subpath
 * `apiary/tasks`; each benchmark's own tasks are in its subpath (`apiary/appbench`, …).
 * @module
 */

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
