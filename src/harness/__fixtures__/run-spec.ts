import type { RunSpec } from '../run-spec.js';

/**
 * A run spec (results-file header) for tests and benches that write results files by hand: no
 * model, no sampling, one epoch, fixed start; `parts` names the task, solver, data and size.
 */
export function minimalRunSpec(parts: Pick<RunSpec, 'task' | 'solver' | 'data' | 'size'>): RunSpec {
  return {
    version: 2,
    ...parts,
    model: null,
    sampling: null,
    limit: null,
    seed: 0,
    epochs: 1,
    concurrency: 1,
    price: null,
    gitRevision: null,
    packageVersion: '0',
    startedAt: '2026-01-01T00:00:00.000Z',
  };
}
