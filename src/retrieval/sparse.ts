/** A sparse vector: parallel index/value arrays (indices distinct, any order). */
export interface SparseVector {
  idx: Int32Array;
  val: Float32Array;
}

export function shuffleInPlace<T>(items: T[], rand: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = items[i] as T;
    items[i] = items[j] as T;
    items[j] = t;
  }
  return items;
}

/** wa·a + wb·b as a sparse vector (indices merged). */
export function mixSparse(a: SparseVector, wa: number, b: SparseVector, wb: number): SparseVector {
  const m = new Map<number, number>();
  for (let k = 0; k < a.idx.length; k++) m.set(a.idx[k] as number, wa * (a.val[k] as number));
  for (let k = 0; k < b.idx.length; k++) {
    const i = b.idx[k] as number;
    m.set(i, (m.get(i) ?? 0) + wb * (b.val[k] as number));
  }
  return { idx: Int32Array.from(m.keys()), val: Float32Array.from(m.values()) };
}
