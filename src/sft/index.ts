/**
 * Fine-tuning data: SFT samples from gold plans with augmentations, in OpenAI or ShareGPT
 * format. Subpath `apiary/sft`.
 * @module
 */

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

// System prompt and reply styles
export {
  agentSftStyle,
  compactSftStyle,
  SFT_PLANNER_RULES,
  SFT_PROMPT_STYLES,
  type SftPromptStyle,
  type SftPromptStyleName,
} from './system-prompt.js';
