export * from './appbench/index.js';
export * from './appbench/task.js';
export * from './builtin.js';
export * from './registry.js';
export * from './task.js';
export * from './task-options.js';
export * from './toolbench/index.js';
