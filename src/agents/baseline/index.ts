/**
 * The no-LLM baseline agent (docs/baseline.md): BM25 API selection per clause and rule-based
 * slot filling. Re-exported by `apiary/agents`.
 * @module
 */

// The agent and its options
export { type BaselineAgentOptions, baselineAgent } from './baseline-agent.js';

// Options of its API selection (BM25 per clause)
export type { SelectApisOptions } from './select-apis.js';
