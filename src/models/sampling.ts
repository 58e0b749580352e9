import type { wrapLanguageModel } from 'ai';

/** The AI SDK v3 language model object (what providers return and middleware wraps). */
export type LanguageModelV3 = Parameters<typeof wrapLanguageModel>[0]['model'];

/**
 * Sampling settings of one call; an undefined field is left out of the request (the server's own
 * default applies). `topP: null` also omits `top_p`: use it for servers that reject `top_p = 0`
 * (some vLLM/TGI versions and hosted APIs do).
 */
export interface SamplingSettings {
  temperature?: number;
  topP?: number | null;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
}

/** Settings with the core fields decided (what a task's defaults provide). */
export type FilledSamplingSettings = SamplingSettings & {
  temperature: number;
  topP: number | null;
  maxOutputTokens: number;
};

/** The official AppBench settings (specs/metabench.md §5): temperature 0, top_p 0, max_tokens 1024. */
export const APPBENCH_SAMPLING: Readonly<FilledSamplingSettings> = Object.freeze({
  temperature: 0,
  topP: 0,
  maxOutputTokens: 1024,
});

/**
 * `settings` with `defaults` filled in for the fields the caller left undefined (`topP: null` is a
 * decision, not a gap). The defaults belong to the task; AppBench's stay the fallback for now.
 */
export function withSamplingDefaults(
  settings: SamplingSettings = {},
  defaults: FilledSamplingSettings = APPBENCH_SAMPLING,
): FilledSamplingSettings {
  const filled: FilledSamplingSettings = {
    temperature: settings.temperature ?? defaults.temperature,
    topP: settings.topP === undefined ? defaults.topP : settings.topP,
    maxOutputTokens: settings.maxOutputTokens ?? defaults.maxOutputTokens,
  };
  const stopSequences = settings.stopSequences ?? defaults.stopSequences;
  const seed = settings.seed ?? defaults.seed;
  if (stopSequences !== undefined) filled.stopSequences = stopSequences;
  if (seed !== undefined) filled.seed = seed;
  return filled;
}
