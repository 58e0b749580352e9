/**
 * Benchmarks as tasks: the task contract the harness runs, AppBench (data, scoring, the
 * task) and ToolBench retrieval (suite, training, evaluation). Subpath `apiary/tasks`.
 * @module
 */

// AppBench / MetaBench and ToolBench retrieval (curated sub-entries, gathered as they are)
export * from './appbench/index.js';
// The task contract the harness runs
export type { AnyTask, Outcome, SolveContext, Solved, Task, TaskSample, TaskUsage } from './task.js';
export * from './toolbench/index.js';
