import type { FilledSamplingSettings } from '../../models/index.js';

/** The official AppBench settings (docs/appbench.md, "Prompts and sampling"): temperature 0, top_p 0, max_tokens 1024. */
export const APPBENCH_SAMPLING: Readonly<FilledSamplingSettings> = Object.freeze({
  temperature: 0,
  topP: 0,
  maxOutputTokens: 1024,
});
