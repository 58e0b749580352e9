export * from './generate.js';
export * from './generate-with-retry.js';
export * from './model-config.js';
export * from './model-faults.js';
export * from './resolve-model.js';
export * from './response-cache.js';
export * from './sampling.js';
export * from './token-usage.js';
