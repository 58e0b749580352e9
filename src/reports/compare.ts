import type { RunSpec, SampleLine } from '../harness/index.js';
import { stableJson } from '../shared/index.js';

/**
 * Spec fields that do not change what a result means (where the data lies, how fast it ran, when,
 * from which build) or that name what is being compared (the model): not warned about.
 */
const NOT_COMPARED = new Set([
  'startedAt',
  'gitRevision',
  'packageVersion',
  'concurrency',
  'data.path',
  'model',
  'model.id',
  'model.baseUrl',
  'price',
  'price.inputPerMTok',
  'price.outputPerMTok',
]);

export interface SpecDifference {
  /** Dotted path of the differing leaf, e.g. `data.sha256`, `sampling.temperature`, `epochs`. */
  field: string;
  /** The value in each run, in run order (undefined when absent). */
  values: unknown[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function leaves(value: unknown, path: string, out: Map<string, unknown>): void {
  if (isPlainObject(value) && Object.keys(value).length) {
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
  } else out.set(path, value);
}

/**
 * The leaves that differ between runs' specs (data hash, sampling, task and solver options such as
 * tool recording, limit, seed, epochs…), sorted by field; empty when the runs are comparable.
 */
export function specDifferences(specs: readonly RunSpec[]): SpecDifference[] {
  const flat = specs.map((s) => {
    const m = new Map<string, unknown>();
    leaves(s, '', m);
    return m;
  });
  const fields = [...new Set(flat.flatMap((m) => [...m.keys()]))].sort();
  const out: SpecDifference[] = [];
  for (const field of fields) {
    if (NOT_COMPARED.has(field) || field.startsWith('price.')) continue;
    // A leaf of one spec may be an object in another (`model: null` beside `model: {id…}`):
    // that run's value is its object, not "(absent)".
    const values = specs.map((s, i) => (flat[i]!.has(field) ? flat[i]!.get(field) : valueAt(s, field)));
    if (new Set(values.map((v) => (v === undefined ? '(absent)' : stableJson(v)))).size > 1)
      out.push({ field, values });
  }
  return out;
}

function valueAt(root: unknown, path: string): unknown {
  let v: unknown = root;
  for (const key of path.split('.')) v = isPlainObject(v) ? v[key] : undefined;
  return v;
}

/** `data.sha256 (3f2a… vs 9b1c…), epochs (1 vs 3)` */
export function formatSpecDifferences(diffs: readonly SpecDifference[]): string {
  const show = (v: unknown) => {
    if (v === undefined) return '(absent)';
    const s = JSON.stringify(v);
    return s.length > 14 && typeof v === 'string' ? `${JSON.stringify(v.slice(0, 10))}…` : s;
  };
  return diffs.map((d) => `${d.field} (${d.values.map(show).join(' vs ')})`).join(', ');
}

export interface ChangedSample {
  id: string;
  category: string | null;
  /** The sample's value in each run (mean over its epochs), null where the run lacks it. */
  values: Array<number | null>;
}

export interface SampleComparison {
  /** Samples scored in every run whose value differs between runs. */
  changed: ChangedSample[];
  /** Samples missing from at least one run: not compared (a missing sample has not changed). */
  missing: ChangedSample[];
}

/**
 * Compares per-sample values between runs (in dataset-of-first-run order). `sampleValue` turns one
 * record into a number (e.g. 1/0 for pass/fail, NDCG@5); records for which it gives null are left
 * out. A sample is `changed` when every run scored it and the values differ, `missing` when some
 * run lacks it (a partial run is not a change of the model's answers).
 */
export function compareSamples(
  runs: ReadonlyArray<readonly SampleLine[]>,
  sampleValue: (line: SampleLine) => number | null,
): SampleComparison {
  const perRun = runs.map((lines) => {
    const sums = new Map<string, { sum: number; n: number; category: string | null }>();
    for (const l of lines) {
      const v = sampleValue(l);
      if (v === null) continue;
      const e = sums.get(l.id) ?? { sum: 0, n: 0, category: l.category };
      e.sum += v;
      e.n++;
      sums.set(l.id, e);
    }
    return sums;
  });
  const ids = [...new Set(perRun.flatMap((m) => [...m.keys()]))];
  const out: SampleComparison = { changed: [], missing: [] };
  for (const id of ids) {
    const values = perRun.map((m) => {
      const e = m.get(id);
      return e ? e.sum / e.n : null;
    });
    const category = perRun.map((m) => m.get(id)?.category).find((c) => c !== undefined) ?? null;
    if (values.some((v) => v === null)) {
      out.missing.push({ id, category, values });
      continue;
    }
    const first = values[0]!;
    if (!values.every((v) => Math.abs(v! - first) < 1e-9)) out.changed.push({ id, category, values });
  }
  return out;
}
