import { join } from 'node:path';
import { type DenseModel, saveDenseModel, trainDenseEncoder } from '../../retrieval/index.js';

/**
 * A tiny untrained dense encoder (16-d, 256 buckets, word matching on) saved as `<dir>/dense.apdm`,
 * for the CLI tests of `--retriever-model`: its random rows still give a definite ranking, which
 * the tests compare with the library's ranking for the same model.
 */
export function writeTestEncoder(dir: string): { file: string; model: DenseModel } {
  const { model } = trainDenseEncoder([], {
    config: { dim: 16, buckets: 256, minN: 3, maxN: 4, wordMatchWeight: 1 },
    epochs: 0,
    vocabularyTexts: ['restaurants', 'restaurants'],
  });
  const file = join(dir, 'dense.apdm');
  saveDenseModel(file, model);
  return { file, model };
}
