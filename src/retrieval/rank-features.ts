import { type FieldedCorpus, FieldFeatures, type FieldIndexes } from './field-features.js';
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

/**
 * Makes `fieldFeaturesOf(corpus)` use indexes built before (e.g. loaded from the catalog's index
 * file), so training the ranker does not index the corpus again (time, and a transient peak of
 * several hundred MB on ToolBench). The indexes must come from this corpus.
 */
export function useFieldIndexes(corpus: FieldedCorpus, indexes: FieldIndexes): void {
  if (indexes.text.size !== corpus.texts.length)
    throw new RangeError(`indexes cover ${indexes.text.size} documents, the corpus ${corpus.texts.length}`);
  fieldFeatureCache.set(corpus, new FieldFeatures(indexes));
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
