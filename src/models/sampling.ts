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

/**
 * `settings` with a task's `defaults` filled in for the fields the caller left undefined (`topP:
 * null` is a decision, not a gap). Models apply no defaults of their own: each task brings its own.
 */
export function withSamplingDefaults(
  settings: SamplingSettings,
  defaults: FilledSamplingSettings,
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
