import { type FieldedCorpus, FieldFeatures, type FieldIndexes } from './field-features.js';
import {
  type FeatureVectors,
  type RankExample,
  type RankerModel,
  scaledRankExample,
  scaleFeaturesInPlace,
} from './linear-ranker.js';
import type { RetrievalQuery, Retriever } from './types.js';

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

/**
 * `rankExample` of each query over `rankFeatureSource(corpus, trained)`'s features, the same
 * examples computed with one set of feature vectors reused for every query and scaled in place:
 * a new set per query is 18 corpus-sized vectors and their scaled copies (~8 MB on ToolBench),
 * garbage that V8 collects late, which took the nested ranker training over 1 GB.
 */
export async function rankExamples(
  corpus: FieldedCorpus,
  queries: readonly RetrievalQuery[],
  names: readonly string[],
  initial: RankerModel,
  trained?: Retriever,
  perList = 300,
): Promise<RankExample[]> {
  const ff = fieldFeaturesOf(corpus);
  const fields = ff.vectors();
  const vectors = new Map<string, Float32Array>(fields);
  const base = new Float32Array(ff.size);
  const examples: RankExample[] = [];
  for (const q of queries) {
    ff.compute(q.text, fields);
    if (trained) vectors.set('trained', await trained.scoreAll(q.text));
    scaleFeaturesInPlace(vectors, initial.scaled);
    examples.push(scaledRankExample(vectors, q, names, initial, perList, base));
  }
  return examples;
}
