export * from './graph.js';
export * from './metabench-format.js';
export * from './plan-json.js';
export * from './plan-parse-error.js';
export * from './render-dag.js';
export * from './schema.js';
export * from './validate-plan.js';
