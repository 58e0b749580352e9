/**
 * Fine-tuning data: SFT samples from gold plans with augmentations, in OpenAI or ShareGPT
 * format. Subpath `apiary/sft`.
 * @module
 */

// AppBench as the source of gold tasks and demonstrations
export {
  appBenchDemoKnowledgeBase,
  type DemoKnowledgeBase,
  type LoadAppBenchTasksOptions,
  loadAppBenchGoldTasks,
} from '../benchmarks/appbench/sft-source.js';

// Building SFT samples from gold plans, with augmentations
export {
  type BuildSftOptions,
  buildSftSamples,
  SFT_BALANCES,
  type SftBalance,
  type SftBuild,
  type SftSample,
  type SftSource,
  type SftStats,
} from './build-sft.js';

// Paraphrasing instructions through a model
export { PARAPHRASE_SYSTEM_PROMPT, type ParaphraseOptions } from './paraphrase.js';

// Output formats (OpenAI chat, ShareGPT)
export { formatSftJsonl, SFT_FORMATS, type SftChat, type SftFormat } from './sft-format.js';

// System prompt styles
export { SFT_PLANNER_RULES, SFT_PROMPT_STYLES, type SftPromptStyle } from './system-prompt.js';
