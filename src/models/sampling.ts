import type { wrapLanguageModel } from 'ai';

/** The AI SDK v3 language model object (what providers return and middleware wraps). */
export type LanguageModelV3 = Parameters<typeof wrapLanguageModel>[0]['model'];

/**
 * Sampling settings sent with every call. `topP: null` omits `top_p` from the request:
 * use it for servers that reject `top_p = 0` (some vLLM/TGI versions and hosted APIs do).
 */
export interface SamplingSettings {
  temperature?: number;
  topP?: number | null;
  maxOutputTokens?: number;
}

/** The official AppBench settings (specs/metabench.md §5): temperature 0, top_p 0, max_tokens 1024. */
export const APPBENCH_SAMPLING: Readonly<Required<SamplingSettings>> = Object.freeze({
  temperature: 0,
  topP: 0,
  maxOutputTokens: 1024,
});

/** Settings with the AppBench defaults filled in for the fields the caller left undefined. */
export function withSamplingDefaults(settings: SamplingSettings = {}): Required<SamplingSettings> {
  return {
    temperature: settings.temperature ?? APPBENCH_SAMPLING.temperature,
    topP: settings.topP === undefined ? APPBENCH_SAMPLING.topP : settings.topP,
    maxOutputTokens: settings.maxOutputTokens ?? APPBENCH_SAMPLING.maxOutputTokens,
  };
}
