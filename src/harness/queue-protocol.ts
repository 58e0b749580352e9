/**
 * What a distributed eval's coordinator and its workers agree on through Redis: where runs are
 * announced, how a run's queue and jobs are named, and what a job carries (ids, never data).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AgentTraceEventSchema } from '../agents/index.js';
import { jsonDepthExceededAt, MAX_JSON_DEPTH } from '../shared/index.js';
import { RECORD_MODES } from '../tasks/index.js';
import type { MessageKind, QueueAuth } from './queue-auth.js';
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

/** A run id: it names Redis keys, so only UUID-like text (what the coordinator makes). */
const RunIdSchema = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'letters, digits and dashes, at most 64');

/** One job: which sample of the rebuilt task to solve and score, bound to its run. */
export const QueueJobDataSchema = z.object({
  runId: RunIdSchema,
  id: z.string(),
  epoch: z.number().int().min(1),
  seed: z.number().int(),
});
export type QueueJobData = z.infer<typeof QueueJobDataSchema>;

/** A tool endpoint as `apiary eval`'s flags give it: no key (each worker has its own). */
const AnnouncedEndpointSchema = z.strictObject({
  baseURL: z.string().optional(),
  model: z.string().optional(),
});

/**
 * The tool settings a run may announce: exactly what `apiary eval`'s tool flags produce (search
 * corpus and provider, vision/image/embeddings endpoints, a recording folder). No keys, no
 * environment, no sandbox or OCR options: those a worker takes from its own machine only.
 */
const AnnouncedToolsSchema = z.strictObject({
  config: z
    .strictObject({
      search: z.strictObject({ corpus: z.string().optional(), provider: z.string().optional() }).optional(),
      vision: AnnouncedEndpointSchema.optional(),
      image: AnnouncedEndpointSchema.optional(),
    })
    .optional(),
  recording: z.strictObject({ dir: z.string(), mode: z.enum(RECORD_MODES) }).optional(),
  embeddings: AnnouncedEndpointSchema.optional(),
});

/** What the coordinator publishes for workers: how to rebuild the task, and what data it must read. */
export const RunAnnouncementSchema = z.object({
  runId: RunIdSchema,
  queue: z.string().min(1),
  /** The recipe without any API key: each worker takes its key from its own environment. */
  recipe: TaskRecipeSchema.extend({ tools: AnnouncedToolsSchema.optional() }),
  /** SHA-256 of the data the coordinator read (the run spec's `data.sha256`); null: not checked. */
  dataSha256: z.string().nullable(),
  /** The data folder as the coordinator read it (for messages). */
  dataPath: z.string(),
  createdAt: z.string(),
});
export type RunAnnouncement = z.infer<typeof RunAnnouncementSchema>;

/** A worker's answer for one job: the sample's result, bound to the run, sample and epoch it is for. */
export const QueueResultSchema = z.object({
  runId: RunIdSchema,
  id: z.string(),
  epoch: z.number().int().min(1),
  /** Null: the worker's abort cut the sample short. */
  run: z
    .object({
      output: z.unknown(),
      error: z.string().nullable(),
      usage: z
        .object({ inputTokens: z.number().nonnegative(), outputTokens: z.number().nonnegative() })
        .nullable(),
      modelCalls: z.number().int().nonnegative(),
      score: z.unknown().refine((v) => v !== undefined, 'a score is required'),
      /** Absent from workers of a version before sample events (the record then has none). */
      events: z.array(AgentTraceEventSchema).optional(),
      infrastructureFailure: z.boolean(),
      connectionFailure: z.boolean(),
    })
    .nullable(),
});
export type QueueResult = z.infer<typeof QueueResultSchema>;

/** A worker's note for a run's coordinator (why it refused the run). */
export const QueueNoteSchema = z.object({ runId: RunIdSchema, text: z.string().max(4000) });

/** Largest envelope read from Redis, per kind (bytes of its JSON text): what is larger is refused unread. */
const MAX_ENVELOPE_BYTES: Record<MessageKind, number> = {
  announcement: 1 << 20,
  job: 64 << 10,
  result: 64 << 20,
  note: 8 << 10,
};

/**
 * What goes on Redis: the payload as a JSON text and its MAC (null without a secret). The MAC is
 * over that exact text, so it is checked before the payload is parsed.
 */
const EnvelopeSchema = z.object({ payload: z.string(), mac: z.string().nullable() });
export type Envelope = z.infer<typeof EnvelopeSchema>;

export function seal(auth: QueueAuth, kind: MessageKind, value: unknown): Envelope {
  const payload = JSON.stringify(value);
  return { payload, mac: auth.sign(kind, payload) };
}

/**
 * Text from Redis made safe to print: control characters (C0, DEL, C1: terminal escapes) as
 * `\\u` escapes, cut to `max` characters.
 */
export function printable(text: string, max = 200): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export type Opened<T> = { ok: true; value: T } | { ok: false; why: string };

/**
 * Reads an envelope from Redis (its JSON text, or the object BullMQ already parsed): size, shape,
 * MAC, then the payload's schema. Never throws: whatever is wrong comes back as `why`.
 */
export function openEnvelope<T>(
  auth: QueueAuth,
  kind: MessageKind,
  raw: unknown,
  schema: z.ZodType<T>,
): Opened<T> {
  let envelope: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.length > MAX_ENVELOPE_BYTES[kind])
      return {
        ok: false,
        why: `${raw.length} bytes, over the ${MAX_ENVELOPE_BYTES[kind]}-byte limit of a ${kind}`,
      };
    if (jsonDepthExceededAt(raw) >= 0)
      return { ok: false, why: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` };
    try {
      envelope = JSON.parse(raw);
    } catch {
      return { ok: false, why: 'not JSON' };
    }
  }
  const shape = EnvelopeSchema.safeParse(envelope);
  if (!shape.success) return { ok: false, why: 'not a signed envelope ({payload, mac})' };
  const { payload, mac } = shape.data;
  if (payload.length > MAX_ENVELOPE_BYTES[kind])
    return {
      ok: false,
      why: `${payload.length} bytes, over the ${MAX_ENVELOPE_BYTES[kind]}-byte limit of a ${kind}`,
    };
  if (!auth.verify(kind, payload, mac))
    return { ok: false, why: mac === null ? 'not signed' : 'bad MAC (not signed with this queue secret)' };
  if (jsonDepthExceededAt(payload) >= 0)
    return { ok: false, why: `payload nested deeper than ${MAX_JSON_DEPTH} levels` };
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return { ok: false, why: 'payload is not JSON' };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // paths and messages may hold keys from Redis: printable
    return {
      ok: false,
      why: printable(`invalid ${kind}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`, 500),
    };
  }
  return { ok: true, value: parsed.data };
}
