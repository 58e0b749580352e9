import { mulberry32, shuffled } from '../shared/index.js';

/** A shuffled copy (Fisher–Yates over mulberry32) driven by `seed`; the input is not modified. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  return shuffled(items, mulberry32(seed));
}
