/**
 * Apiary's main entry: every public name of every domain. Each domain is also a subpath with
 * the same names (`apiary/catalog`, `apiary/plan`, `apiary/apps`, `apiary/exec`, `apiary/models`,
 * `apiary/retrieval`, `apiary/agents`, `apiary/tasks`, `apiary/harness`, `apiary/sft`,
 * `apiary/viewer`); test helpers are only in `apiary/test`.
 * @module
 */

// Each domain entry is a curated list (see its index.ts); here they are gathered as they are.
import { registerBuiltinPlugins } from './benchmarks/builtin.js';

export * from './agents/index.js';
export * from './apps/index.js';
export * from './catalog/index.js';
export * from './exec/index.js';
export * from './harness/index.js';
export * from './mcp/index.js';
export * from './models/index.js';
export * from './plan/index.js';
export * from './plugins/index.js';
export * from './reports/index.js';
export * from './retrieval/index.js';
export * from './sft/index.js';
// Errors, seeded randomness and hashes
export {
  ApiaryError,
  type ErrorCode,
  fnv1a32,
  InputInvalidError,
  type InputLocation,
  mulberry32,
  NotFoundError,
  type Rand,
  sampleWithoutReplacement,
  sha256Hex,
  shuffled,
} from './shared/index.js';
export * from './tasks/index.js';
export * from './tools/index.js';
export * from './viewer/index.js';

// The root entry is the batteries-included one: importing it registers the built-in benchmarks,
// so `loadCatalog('appbench')` and their tasks work as they did before plugins.
registerBuiltinPlugins();
