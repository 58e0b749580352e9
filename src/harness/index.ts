export * from './environment.js';
export * from './progress.js';
export * from './results-file.js';
export * from './run-eval.js';
export * from './run-spec.js';
export * from './seeded-random.js';
export * from './summary.js';
