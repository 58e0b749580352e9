export * from '../shared/index.js';
export * from './appbench-source.js';
export * from './build-sft.js';
export * from './paraphrase.js';
export * from './sft-format.js';
export * from './system-prompt.js';
