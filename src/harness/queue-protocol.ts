/**
 * What a distributed eval's coordinator and its workers agree on through Redis: where runs are
 * announced, how a run's queue and jobs are named, and what a job carries (ids, never data).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { TaskRecipeSchema } from './sample-runner.js';

/** Redis hash of the runs in progress: run id → JSON `RunAnnouncement`. Workers poll it. */
export const RUNS_KEY = 'apiary:runs';

/** Redis list of notes workers leave for a run's coordinator (a data hash that differs, a load error). */
export const notesKey = (runId: string) => `apiary:run:${runId}:notes`;

/** The BullMQ queue of one run (BullMQ names may not hold ':'). */
export const queueNameFor = (runId: string) => `apiary-run-${runId}`;

/**
 * The job id of one (sample, epoch): BullMQ ignores an add whose id exists, so a sample is queued
 * at most once per run. Hashed because sample ids may hold any character.
 */
export function jobIdFor(id: string, epoch: number): string {
  const h = createHash('sha256').update(id).digest('hex').slice(0, 24);
  return `e${epoch}-${h}`;
}

/** One job: which sample of the rebuilt task to solve and score. */
export const QueueJobDataSchema = z.object({
  id: z.string(),
  epoch: z.number().int().min(1),
  seed: z.number().int(),
});
export type QueueJobData = z.infer<typeof QueueJobDataSchema>;

/** What the coordinator publishes for workers: how to rebuild the task, and what data it must read. */
export const RunAnnouncementSchema = z.object({
  runId: z.string().min(1),
  queue: z.string().min(1),
  /** The recipe without any API key: each worker takes its key from its own environment. */
  recipe: TaskRecipeSchema,
  /** SHA-256 of the data the coordinator read (the run spec's `data.sha256`); null: not checked. */
  dataSha256: z.string().nullable(),
  /** The data folder as the coordinator read it (for messages). */
  dataPath: z.string(),
  createdAt: z.string(),
});
export type RunAnnouncement = z.infer<typeof RunAnnouncementSchema>;
