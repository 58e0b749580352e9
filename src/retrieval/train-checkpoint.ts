import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InputInvalidError, writeFileAtomic } from '../shared/index.js';
import type { TrainState } from './trained-retriever.js';

/**
 * Training checkpoints: one JSON file per training stage with the options it was started with
 * (a resume with other options is refused) and the `TrainState` (weights and optimiser moments as
 * base64 float64, so a resumed run is bit-identical to an uninterrupted one).
 */
export interface TrainCheckpoint {
  stage: string;
  /** The options that determine the run (files, epochs, seed, pairs, …): must match on resume. */
  config: Record<string, unknown>;
  state: TrainState;
}

const f64 = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
const fromF64 = (s: string) => {
  const b = Buffer.from(s, 'base64');
  return new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

const fileSchema = z.object({
  format: z.literal('apiary-train-checkpoint'),
  version: z.literal(1),
  stage: z.string(),
  config: z.record(z.string(), z.unknown()),
  state: z.object({
    epoch: z.number().int().min(0),
    nextBatch: z.number().int().min(0),
    randCalls: z.number().int().min(0),
    w: z.string(),
    adam: z.object({ m: z.string(), v: z.string(), t: z.number().int().min(0) }),
    epochLosses: z.array(z.number()),
    lossSoFar: z.number(),
  }),
});

export function saveTrainCheckpoint(path: string, ck: TrainCheckpoint): void {
  const { state } = ck;
  writeFileAtomic(
    path,
    JSON.stringify({
      format: 'apiary-train-checkpoint',
      version: 1,
      stage: ck.stage,
      config: ck.config,
      state: {
        ...state,
        w: f64(state.w),
        adam: { m: f64(state.adam.m), v: f64(state.adam.v), t: state.adam.t },
      },
    }),
  );
}

export function loadTrainCheckpoint(path: string): TrainCheckpoint {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new InputInvalidError({ file: path }, `not a JSON checkpoint (${(e as Error).message})`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InputInvalidError(
      { file: path, ...(issue?.path.length ? { field: issue.path.join('.') } : {}) },
      issue?.message ?? 'invalid checkpoint',
    );
  }
  const { stage, config, state } = parsed.data;
  const w = fromF64(state.w);
  const m = fromF64(state.adam.m);
  const v = fromF64(state.adam.v);
  if (m.length !== w.length || v.length !== w.length)
    throw new InputInvalidError(
      { file: path, field: 'state.adam' },
      'weights and optimiser moments differ in length',
    );
  return { stage, config, state: { ...state, w, adam: { m, v, t: state.adam.t } } };
}

/** The first option that differs between a checkpoint's config and this run's, or undefined. */
export function configMismatch(
  saved: Record<string, unknown>,
  now: Record<string, unknown>,
): string | undefined {
  for (const k of new Set([...Object.keys(saved), ...Object.keys(now)]))
    if (JSON.stringify(saved[k]) !== JSON.stringify(now[k]))
      return `${k}: checkpoint ${JSON.stringify(saved[k])}, now ${JSON.stringify(now[k])}`;
  return undefined;
}
