export * from './appbench/index.js';
export * from './task.js';
