import type { Embedder } from '../types.js';

/**
 * Test embedder (hand-made): counts of each vocabulary word among the text's lower-case
 * `[a-z]+` tokens, so cosine similarities can be computed by hand.
 */
export const DEMO_VOCABULARY = ['weather', 'train', 'restaurant', 'oslo', 'bergen', 'book'] as const;

export function bagOfWordsEmbedder(vocabulary: readonly string[] = DEMO_VOCABULARY): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    name: 'bag-of-words',
    dimension: vocabulary.length,
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((t) => {
        const v = new Float32Array(vocabulary.length);
        for (const token of t.toLowerCase().match(/[a-z]+/g) ?? []) {
          const i = vocabulary.indexOf(token);
          if (i >= 0) v[i] = (v[i] ?? 0) + 1;
        }
        return v;
      });
    },
  };
}
