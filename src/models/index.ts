export * from './generate-with-retry.js';
export * from './model-config.js';
export * from './resolve-model.js';
export * from './response-cache.js';
export * from './sampling.js';
