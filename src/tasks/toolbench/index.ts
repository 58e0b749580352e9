export * from './corpus.js';
export * from './dataset.js';
export * from './doc-text.js';
export * from './evaluate.js';
export * from './py-json.js';
export * from './queries.js';
export * from './suite.js';
