import type { Price } from './run-spec.js';

/**
 * Dollars for a token count at a price per million tokens. Private to the harness for now (the
 * models domain is getting `costOf(usage, price)`; the two will be unified).
 */
export function sampleCost(
  usage: { inputTokens: number; outputTokens: number } | null | undefined,
  price: Price,
): number {
  if (!usage) return 0;
  return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000;
}
