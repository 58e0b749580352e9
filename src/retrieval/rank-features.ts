import { type FieldedCorpus, FieldFeatures } from './field-features.js';
import type { FeatureVectors } from './linear-ranker.js';
import type { Retriever } from './types.js';

const fieldFeatureCache = new WeakMap<FieldedCorpus, FieldFeatures>();

/** The field features of a corpus (BM25 indexes built once per corpus object). */
export function fieldFeaturesOf(corpus: FieldedCorpus): FieldFeatures {
  let ff = fieldFeatureCache.get(corpus);
  if (!ff) {
    ff = new FieldFeatures(corpus);
    fieldFeatureCache.set(corpus, ff);
  }
  return ff;
}

/** Feature vectors of `ranked`: `FIELD_FEATURES`, plus `trained` (cosine of a trained retriever) when given. */
export function rankFeatureSource(corpus: FieldedCorpus, trained?: Retriever) {
  const ff = fieldFeaturesOf(corpus);
  return async (query: string): Promise<FeatureVectors> => {
    const m: Map<string, Float32Array> = ff.compute(query);
    if (trained) m.set('trained', await trained.scoreAll(query));
    return m;
  };
}
