/**
 * The task contract the harness runs, its options and the registry of tasks by name. Subpath
 * `apiary/tasks`; each benchmark's own tasks are in its subpath (`apiary/appbench`, …).
 * @module
 */

export { registerBuiltinTasks } from './builtin.js';
// The registry: tasks by name, with their options and solvers
export {
  defaultTaskRegistry,
  getSolver,
  getTask,
  listTasks,
  registerTask,
  TaskRegistry,
} from './registry.js';
// The task contract the harness runs
export type {
  AnyTask,
  LoadedTask,
  ModelCallLimits,
  OptionsSchema,
  Outcome,
  SolveContext,
  Solved,
  SolverDefinition,
  Task,
  TaskDefinition,
  TaskLoadContext,
  TaskSample,
  TaskToolSettings,
  TaskUsage,
} from './task.js';
export { RECORD_MODES } from './task.js';
export {
  describeOptions,
  type OptionInfo,
  parseOptionAssignments,
  routeOptions,
  validateOptions,
} from './task-options.js';
