/**
 * Apiary's public API: every domain's index. Subpaths (`apiary/catalog`, `apiary/plan`, …) give the
 * same exports one domain at a time.
 * @module
 */
export * from './agents/index.js';
export * from './apps/index.js';
export * from './catalog/index.js';
export * from './exec/index.js';
export * from './harness/index.js';
export * from './models/index.js';
export * from './plan/index.js';
export * from './retrieval/index.js';
export * from './sft/index.js';
export * from './shared/index.js';
export * from './tasks/index.js';
