/**
 * Seeded randomness for data building (no Math.random): mulberry32, a 32-bit PRNG whose whole
 * state is one integer, so the same seed gives the same stream on every platform.
 */
export type Rand = () => number;

/** A generator of floats in [0, 1) for a 32-bit seed. */
export function mulberry32(seed: number): Rand {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [0, n). */
export function randInt(rand: Rand, n: number): number {
  return Math.floor(rand() * n);
}

/** A shuffled copy (Fisher–Yates from the end; draws n − 1 numbers). */
export function shuffled<T>(items: readonly T[], rand: Rand): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randInt(rand, i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** `n` distinct items drawn without replacement, in draw order (partial Fisher–Yates from the front). */
export function sampleWithoutReplacement<T>(items: readonly T[], n: number, rand: Rand): T[] {
  const pool = [...items];
  const k = Math.max(0, Math.min(n, pool.length));
  for (let i = 0; i < k; i++) {
    const j = i + randInt(rand, pool.length - i);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, k);
}
