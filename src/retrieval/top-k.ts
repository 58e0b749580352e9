import type { RetrievalHit } from './types.js';

/**
 * The k best entries of a score vector, best first, using a size-k binary min-heap (O(N log k)).
 * Ties are broken by the lower document index (corpus order), so results are deterministic.
 */
export function topK(scores: ArrayLike<number>, k: number): RetrievalHit[] {
  const kk = Math.max(0, Math.min(Math.floor(k), scores.length));
  if (kk === 0) return [];
  const heap = new Int32Array(kk); // heap[0] = the worst of the kept entries
  let size = 0;
  // `a` ranks below `b`
  const worse = (a: number, b: number): boolean => {
    const sa = scores[a] as number;
    const sb = scores[b] as number;
    return sa < sb || (sa === sb && a > b);
  };
  const siftDown = (start: number) => {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && worse(heap[l] as number, heap[m] as number)) m = l;
      if (r < size && worse(heap[r] as number, heap[m] as number)) m = r;
      if (m === i) return;
      const t = heap[i] as number;
      heap[i] = heap[m] as number;
      heap[m] = t;
      i = m;
    }
  };
  const n = scores.length;
  for (let d = 0; d < n; d++) {
    if (size < kk) {
      let i = size++;
      heap[i] = d;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(heap[i] as number, heap[p] as number)) break;
        const t = heap[i] as number;
        heap[i] = heap[p] as number;
        heap[p] = t;
        i = p;
      }
    } else if (worse(heap[0] as number, d)) {
      heap[0] = d;
      siftDown(0);
    }
  }
  const docs = Array.from(heap.subarray(0, size));
  docs.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
  return docs.map((doc) => ({ doc, score: scores[doc] as number }));
}
