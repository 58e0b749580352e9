import { z } from 'zod';
import { stableJson } from '../shared/index.js';

/** Bumped when the results-file layout changes; a reader refuses versions it does not know. */
export const RUN_SPEC_VERSION = 1;

export const ModelSpecSchema = z.object({
  /** Model id as given to the endpoint, e.g. `gpt-4o-mini`. */
  id: z.string().min(1),
  baseUrl: z.string().nullable(),
  /** Generation arguments (temperature, top_p, max tokens…), recorded verbatim. */
  args: z.record(z.string(), z.unknown()),
});
export type ModelSpec = z.infer<typeof ModelSpecSchema>;

/**
 * Everything that determines a run's results, written as the first record of the results file.
 * Resuming checks the fields that change the meaning of a result (`RESUME_KEYS`).
 */
export const RunSpecSchema = z.object({
  version: z.literal(RUN_SPEC_VERSION),
  task: z.object({ name: z.string().min(1), version: z.string().min(1) }),
  solver: z.object({
    /** Agent name, e.g. `flat`, `hierarchical`, `baseline`. */
    agent: z.string().min(1),
    /** null when no model is used (the baseline). */
    model: ModelSpecSchema.nullable(),
    prompting: z.string().nullable(),
    shots: z.number().int().min(0),
    /** How the k demonstrations are chosen (e.g. `same-app`, `random`); null for zero-shot. */
    demos: z.string().nullable().default(null),
  }),
  dataset: z.object({
    /** Where the samples were loaded from (a folder or a name). */
    source: z.string(),
    categories: z.array(z.string()).nullable(),
    /** Per-category limit, null for all. */
    limit: z.number().int().min(0).nullable(),
    size: z.number().int().min(0),
  }),
  seed: z.number().int(),
  concurrency: z.number().int().min(1),
  gitRevision: z.string().nullable(),
  packageVersion: z.string(),
  /** ISO time the results file was started (from the injected clock). */
  startedAt: z.string(),
});
export type RunSpec = z.infer<typeof RunSpecSchema>;

/** What `buildRunSpec` fills in itself. */
export type RunSpecInput = Omit<
  z.input<typeof RunSpecSchema>,
  'version' | 'startedAt' | 'gitRevision' | 'packageVersion'
> &
  Partial<Pick<RunSpec, 'gitRevision' | 'packageVersion'>>;

export interface RunSpecDeps {
  now: () => Date;
  gitRevision: () => string | null;
  packageVersion: () => string;
}

export function buildRunSpec(input: RunSpecInput, deps: RunSpecDeps): RunSpec {
  return RunSpecSchema.parse({
    ...input,
    version: RUN_SPEC_VERSION,
    gitRevision: input.gitRevision !== undefined ? input.gitRevision : deps.gitRevision(),
    packageVersion: input.packageVersion ?? deps.packageVersion(),
    startedAt: deps.now().toISOString(),
  });
}

/** Fields that must be equal for a results file to be resumed with a new spec. */
const RESUME_KEYS: ReadonlyArray<[string, (s: RunSpec) => unknown]> = [
  ['task', (s) => s.task],
  ['solver.agent', (s) => s.solver.agent],
  ['solver.model', (s) => s.solver.model],
  ['solver.prompting', (s) => s.solver.prompting],
  ['solver.shots', (s) => s.solver.shots],
  ['solver.demos', (s) => s.solver.demos],
  ['dataset.categories', (s) => s.dataset.categories],
  ['dataset.limit', (s) => s.dataset.limit],
  ['seed', (s) => s.seed],
];

/** The resume-relevant differences between a recorded spec and a new one (empty when compatible). */
export function runSpecConflicts(
  recorded: RunSpec,
  requested: RunSpec,
): Array<{ field: string; recorded: unknown; requested: unknown }> {
  const out: Array<{ field: string; recorded: unknown; requested: unknown }> = [];
  for (const [field, get] of RESUME_KEYS) {
    const a = get(recorded);
    const b = get(requested);
    if (stableJson(a) !== stableJson(b)) out.push({ field, recorded: a, requested: b });
  }
  return out;
}
