import { z } from 'zod';
import { stableJson } from '../shared/index.js';

/**
 * Bumped when the results-file layout changes. Version 1 (AppBench-shaped: agent, prompting,
 * shots) is still read and reported (mapped to version 2), but not resumed.
 */
const RUN_SPEC_VERSION = 2;

/** The sampling settings a model run used (`topP: null` = top_p omitted from requests). */
const SamplingSpecSchema = z.object({
  temperature: z.number().nullable(),
  topP: z.number().nullable(),
  maxOutputTokens: z.number().int().nullable(),
});

/** Dollars per million tokens. */
const PriceSchema = z.object({
  inputPerMTok: z.number().min(0),
  outputPerMTok: z.number().min(0),
});
export type Price = z.infer<typeof PriceSchema>;

/**
 * Everything that determines a run's results, written as the first record of the results file.
 * Resuming checks the fields that change the meaning of a result (see `runSpecConflicts`).
 */
export const RunSpecSchema = z.object({
  version: z.literal(RUN_SPEC_VERSION),
  task: z.object({
    name: z.string().min(1),
    version: z.string().min(1),
    options: z.record(z.string(), z.unknown()),
  }),
  solver: z.object({ name: z.string().min(1), options: z.record(z.string(), z.unknown()) }),
  /** null when the solver uses no model. */
  model: z.object({ id: z.string().min(1), baseUrl: z.string().nullable() }).nullable(),
  /** The effective settings sent with every model call; null without a model. */
  sampling: SamplingSpecSchema.nullable(),
  /** What was read: folder and SHA-256 of the data files' content (null only for mapped v1 specs). */
  data: z.object({ path: z.string(), sha256: z.string().nullable() }),
  /** First N samples of each category, null for all. */
  limit: z.number().int().min(0).nullable(),
  /** Samples in the run (after the limit); each runs `epochs` times. */
  size: z.number().int().min(0),
  seed: z.number().int(),
  epochs: z.number().int().min(1),
  concurrency: z.number().int().min(1),
  price: PriceSchema.nullable(),
  gitRevision: z.string().nullable(),
  packageVersion: z.string(),
  /** ISO time the results file was started (from the injected clock). */
  startedAt: z.string(),
});
export type RunSpec = z.infer<typeof RunSpecSchema>;

/** The version-1 spec (AppBench-shaped), as older results files hold it. */
export const RunSpecV1Schema = z.object({
  version: z.literal(1),
  task: z.object({ name: z.string().min(1), version: z.string().min(1) }),
  solver: z.object({
    agent: z.string().min(1),
    model: z
      .object({
        id: z.string().min(1),
        baseUrl: z.string().nullable(),
        args: z.record(z.string(), z.unknown()),
      })
      .nullable(),
    prompting: z.string().nullable(),
    shots: z.number().int().min(0),
    demos: z.string().nullable().default(null),
  }),
  dataset: z.object({
    source: z.string(),
    categories: z.array(z.string()).nullable(),
    limit: z.number().int().min(0).nullable(),
    size: z.number().int().min(0),
  }),
  seed: z.number().int(),
  concurrency: z.number().int().min(1),
  gitRevision: z.string().nullable(),
  packageVersion: z.string(),
  startedAt: z.string(),
});
export type RunSpecV1 = z.infer<typeof RunSpecV1Schema>;

const numOrNull = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/** A version-1 spec in version-2 terms (agent → solver name; shots/demos → solver options). */
export function upgradeRunSpecV1(v1: RunSpecV1): RunSpec {
  const m = v1.solver.model;
  const llm = v1.solver.agent !== 'baseline';
  return {
    version: RUN_SPEC_VERSION,
    task: {
      name: v1.task.name,
      version: v1.task.version,
      options: { categories: v1.dataset.categories },
    },
    solver: {
      name: v1.solver.agent,
      options: llm ? { shots: v1.solver.shots, demos: v1.solver.demos ?? 'same-app' } : {},
    },
    model: m ? { id: m.id, baseUrl: m.baseUrl } : null,
    sampling: m
      ? {
          temperature: numOrNull(m.args.temperature),
          topP: numOrNull(m.args.topP),
          maxOutputTokens: numOrNull(m.args.maxOutputTokens),
        }
      : null,
    data: { path: v1.dataset.source, sha256: null },
    limit: v1.dataset.limit,
    size: v1.dataset.size,
    seed: v1.seed,
    epochs: 1,
    concurrency: v1.concurrency,
    price: null,
    gitRevision: v1.gitRevision,
    packageVersion: v1.packageVersion,
    startedAt: v1.startedAt,
  };
}

/** What `buildRunSpec` fills in itself. */
export type RunSpecInput = Omit<
  z.input<typeof RunSpecSchema>,
  'version' | 'startedAt' | 'gitRevision' | 'packageVersion' | 'epochs' | 'price' | 'limit'
> &
  Partial<Pick<RunSpec, 'gitRevision' | 'packageVersion' | 'epochs' | 'price' | 'limit'>>;

export interface RunSpecDeps {
  now: () => Date;
  gitRevision: () => string | null;
  packageVersion: () => string;
}

export function buildRunSpec(input: RunSpecInput, deps: RunSpecDeps): RunSpec {
  return RunSpecSchema.parse({
    epochs: 1,
    price: null,
    limit: null,
    ...input,
    version: RUN_SPEC_VERSION,
    gitRevision: input.gitRevision !== undefined ? input.gitRevision : deps.gitRevision(),
    packageVersion: input.packageVersion ?? deps.packageVersion(),
    startedAt: deps.now().toISOString(),
  });
}

/**
 * Fields that must be equal for a results file to be resumed with a new spec. Not compared:
 * where the data lies (its hash is), concurrency, git revision, package version, start time.
 */
const RESUME_KEYS = [
  'task',
  'solver',
  'model',
  'sampling',
  'data.sha256',
  'limit',
  'seed',
  'epochs',
  'price',
] as const;

export interface SpecConflict {
  /** Dotted path of the differing leaf, e.g. `solver.options.shots`. */
  field: string;
  recorded: unknown;
  requested: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function get(spec: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (isPlainObject(v) ? v[k] : undefined), spec);
}

/** Differences down to the leaves, so a conflict names `solver.options.shots` rather than `solver`. */
function diff(a: unknown, b: unknown, path: string, out: SpecConflict[]): void {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) diff(a[k], b[k], `${path}.${k}`, out);
  } else if (stableJson(a) !== stableJson(b)) out.push({ field: path, recorded: a, requested: b });
}

/** The resume-relevant differences between a recorded spec and a new one (empty when compatible). */
export function runSpecConflicts(recorded: RunSpec, requested: RunSpec): SpecConflict[] {
  const out: SpecConflict[] = [];
  for (const key of RESUME_KEYS) diff(get(recorded, key), get(requested, key), key, out);
  return out;
}

/** `solver.options.shots: 2 there, 3 now; seed: 7 there, 8 now` */
export function formatSpecConflicts(conflicts: readonly SpecConflict[]): string {
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  return conflicts.map((c) => `${c.field}: ${show(c.recorded)} there, ${show(c.requested)} now`).join('; ');
}
