import { createSimdKernel, type DotKernel } from './simd-kernel.js';
import { topK } from './top-k.js';
import type { RetrievalHit } from './types.js';

/**
 * Exact (brute-force) vector search over one contiguous Float32Array (row-major, `dimension`
 * floats per document). Score = dot product, which is cosine similarity when rows and query are
 * L2-normalised (`normalize` at add time). Top-k uses a size-k heap. When the dimension is a
 * multiple of 4, scoring runs in a Wasm SIMD kernel (float32 accumulation, created on first use
 * with its own copy of the rows); `simd: false` forces the JavaScript loop (float64 accumulation).
 */
export class VectorIndex {
  readonly dimension: number;
  readonly size: number;
  readonly data: Float32Array;

  private kernel: DotKernel | undefined | null = null;
  private readonly useSimd: boolean;

  constructor(dimension: number, data: Float32Array, opts: { simd?: boolean } = {}) {
    this.useSimd = opts.simd ?? true;
    if (data.length % dimension !== 0)
      throw new RangeError(`vector data length ${data.length} is not a multiple of ${dimension}`);
    this.dimension = dimension;
    this.size = data.length / dimension;
    this.data = data;
  }

  /** Copies the vectors into one block; `normalize` L2-normalises each row. */
  static fromVectors(vectors: readonly Float32Array[], dimension: number, normalize = true): VectorIndex {
    const data = new Float32Array(vectors.length * dimension);
    vectors.forEach((v, i) => {
      if (v.length !== dimension)
        throw new RangeError(`vector ${i} has dimension ${v.length}, expected ${dimension}`);
      data.set(v, i * dimension);
    });
    if (normalize)
      for (let i = 0; i < vectors.length; i++)
        l2NormalizeInPlace(data.subarray(i * dimension, (i + 1) * dimension));
    return new VectorIndex(dimension, data);
  }

  scoreAll(query: Float32Array): Float32Array {
    const { dimension: dim, data, size } = this;
    if (query.length !== dim) throw new RangeError(`query dimension ${query.length}, expected ${dim}`);
    if (this.kernel === null) this.kernel = this.useSimd ? createSimdKernel(data, dim) : undefined;
    if (this.kernel) return this.kernel.scoreAll(query);
    const out = new Float32Array(size);
    const q = Float64Array.from(query);
    const tail = dim - (dim % 4);
    for (let i = 0, o = 0; i < size; i++, o += dim) {
      // 4 independent accumulators let the CPU pipeline the multiply-adds
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = 0;
      for (; j < tail; j += 4) {
        s0 += (data[o + j] as number) * (q[j] as number);
        s1 += (data[o + j + 1] as number) * (q[j + 1] as number);
        s2 += (data[o + j + 2] as number) * (q[j + 2] as number);
        s3 += (data[o + j + 3] as number) * (q[j + 3] as number);
      }
      for (; j < dim; j++) s0 += (data[o + j] as number) * (q[j] as number);
      out[i] = s0 + s1 + s2 + s3;
    }
    return out;
  }

  search(query: Float32Array, k: number): RetrievalHit[] {
    return topK(this.scoreAll(query), k);
  }
}

export function l2NormalizeInPlace(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] as number) * (v[i] as number);
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
  }
  return v;
}
