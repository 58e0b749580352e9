import { describe, expect, it } from 'vitest';
import { diversifyBySentence } from './sentence-diversity.js';

// docs 0 and 1 answer sentence 0 (raw 4 each), doc 2 sentence 1 (raw 2), doc 3 nothing
const sentences = [
  [4, 4, 0, 0],
  [0, 0, 2, 0],
];

describe('diversifyBySentence', () => {
  it('hand-computed: the second sentence’s document overtakes a second answer to the first', () => {
    // depth 3: rel = (s − 1)/2 = 1, 0.5, 0; weights 4/6 and 2/6; λ = 0.7
    // step 1: doc 0 0.3·1 + 0.7·2/3 = 0.767, doc 1 0.15 + 0.467 = 0.617, doc 2 0.7·1/3 = 0.233 → doc 0
    // step 2 (sentence 0 answered): doc 1 0.15, doc 2 0.233 → doc 2; then doc 1
    const out = diversifyBySentence(Float32Array.from([3, 2, 1, 0]), sentences, { lambda: 0.7, depth: 3 });
    expect([...out]).toEqual([3, 1, 2, 0]);
  });

  it('hand-computed: a small λ keeps the order (doc 1 0.25 against doc 2 0.167 at λ 0.5)', () => {
    const out = diversifyBySentence(Float32Array.from([3, 2, 1, 0]), sentences, { lambda: 0.5, depth: 3 });
    expect([...out]).toEqual([3, 2, 1, 0]);
  });

  it('leaves the scores alone for λ 0, one sentence, or documents below the depth', () => {
    expect([
      ...diversifyBySentence(Float32Array.from([3, 2, 1, 0]), sentences, { lambda: 0, depth: 3 }),
    ]).toEqual([3, 2, 1, 0]);
    expect([
      ...diversifyBySentence(Float32Array.from([3, 2, 1, 0]), [[4, 4, 2, 0]], { lambda: 0.7, depth: 3 }),
    ]).toEqual([3, 2, 1, 0]);
    // depth 2: doc 2 is not among the re-ranked documents
    expect([
      ...diversifyBySentence(Float32Array.from([3, 2, 1, 0]), sentences, { lambda: 0.7, depth: 2 }),
    ]).toEqual([3, 2, 1, 0]);
  });
});
