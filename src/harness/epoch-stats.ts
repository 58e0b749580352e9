import { studentTQuantile } from './student-t.js';

/** A headline metric over epochs: the mean, the 95% half-width (null with one epoch) and each epoch's value. */
export interface MetricEstimate {
  mean: number;
  ci95: number | null;
  perEpoch: number[];
}

/** Mean ± 95% confidence half-width, Student t over the epoch values (sample standard deviation). */
export function meanWithCi(values: readonly number[]): MetricEstimate {
  const k = values.length;
  const mean = k ? values.reduce((a, b) => a + b, 0) / k : Number.NaN;
  if (k < 2) return { mean, ci95: null, perEpoch: [...values] };
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (k - 1);
  return { mean, ci95: studentTQuantile(0.975, k - 1) * Math.sqrt(variance / k), perEpoch: [...values] };
}

/** pass^k and pass@k over samples run in every one of k epochs. */
export interface PassRates {
  k: number;
  /** Samples recorded in all k epochs (the denominator). */
  samples: number;
  /** Fraction of those that passed in all k epochs. */
  passHatK: number;
  /** Fraction that passed in at least one epoch. */
  passAtK: number;
}

/** From each sample's pass/fail per epoch; samples missing an epoch are left out. */
export function passRates(results: ReadonlyMap<string, ReadonlyMap<number, boolean>>, k: number): PassRates {
  let samples = 0;
  let all = 0;
  let any = 0;
  for (const byEpoch of results.values()) {
    const runs: boolean[] = [];
    for (let e = 1; e <= k; e++) {
      const r = byEpoch.get(e);
      if (r !== undefined) runs.push(r);
    }
    if (runs.length < k) continue;
    samples++;
    if (runs.every(Boolean)) all++;
    if (runs.some(Boolean)) any++;
  }
  return { k, samples, passHatK: samples ? all / samples : 0, passAtK: samples ? any / samples : 0 };
}
