import { z } from 'zod';

/** Tokens of one model call (or a sum of calls), as the server reported them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** `TokenUsage` as results files record it (one sample's calls summed). */
export const TokenUsageSchema = z.object({
  inputTokens: z.number().min(0),
  outputTokens: z.number().min(0),
});

/** Price of a model in dollars per million tokens, input and output priced apart. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

export const ZERO_USAGE: Readonly<TokenUsage> = Object.freeze({ inputTokens: 0, outputTokens: 0 });

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

/**
 * Cost in dollars: `inputTokens × inputPerMTok / 1e6 + outputTokens × outputPerMTok / 1e6`.
 * Cache hits report the stored usage, so a cached rerun is priced like the run that filled the cache.
 */
export function costOf(usage: TokenUsage, price: ModelPrice): number {
  return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1e6;
}
