import type { Embedder, RetrievalHit, Retriever } from './types.js';
import { VectorIndex } from './vector-index.js';

/**
 * Dense retrieval: every document embedded once into a {@link VectorIndex}; a query is embedded
 * and scored against all rows by cosine similarity (vectors are L2-normalised).
 */
export class EmbeddingRetriever implements Retriever {
  readonly name: string;
  private constructor(
    readonly embedder: Embedder,
    readonly index: VectorIndex,
  ) {
    this.name = `embed(${embedder.name})`;
  }

  /** Embeds `texts` in batches of `batchSize` (default 256) and builds the index. */
  static async build(
    embedder: Embedder,
    texts: readonly string[],
    opts: { batchSize?: number; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<EmbeddingRetriever> {
    const batch = opts.batchSize ?? 256;
    const data = new Float32Array(texts.length * embedder.dimension);
    const tmp = new VectorIndex(embedder.dimension, data);
    for (let i = 0; i < texts.length; i += batch) {
      const vecs = await embedder.embed(texts.slice(i, i + batch));
      vecs.forEach((v, j) => {
        if (v.length !== embedder.dimension)
          throw new RangeError(
            `embedder ${embedder.name} returned dimension ${v.length}, expected ${embedder.dimension}`,
          );
        data.set(v, (i + j) * embedder.dimension);
      });
      opts.onProgress?.(Math.min(i + batch, texts.length), texts.length);
    }
    for (let i = 0; i < texts.length; i++) normalizeRow(data, i, embedder.dimension);
    return new EmbeddingRetriever(embedder, tmp);
  }

  async embedQuery(query: string): Promise<Float32Array> {
    const [v] = await this.embedder.embed([query]);
    if (!v) throw new RangeError(`embedder ${this.embedder.name} returned no vector`);
    const q = Float32Array.from(v);
    normalizeRow(q, 0, q.length);
    return q;
  }

  async scoreAll(query: string): Promise<Float32Array> {
    return this.index.scoreAll(await this.embedQuery(query));
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return this.index.search(await this.embedQuery(query), k);
  }
}

function normalizeRow(data: Float32Array, row: number, dim: number): void {
  let s = 0;
  const o = row * dim;
  for (let d = 0; d < dim; d++) s += (data[o + d] as number) ** 2;
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let d = 0; d < dim; d++) data[o + d] = (data[o + d] as number) * inv;
  }
}
