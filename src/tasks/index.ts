export * from './appbench/index.js';
export * from './appbench/task.js';
export * from './task.js';
export * from './toolbench/index.js';
