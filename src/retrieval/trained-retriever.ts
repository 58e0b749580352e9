import { z } from 'zod';
import { ApiaryError, mulberry32, parseWith, readBytesFile, writeFileAtomic } from '../shared/index.js';
import { type FeatureConfig, FeatureExtractor } from './features.js';
import { Adam, identityProjection, mnrLossAndGrad, type Projection, project } from './mnr.js';
import { mixSparse, type SparseVector, shuffleInPlace } from './sparse.js';
import type { RetrievalHit, Retriever } from './types.js';
import { VectorIndex } from './vector-index.js';
import type { WordVectors } from './word-vectors.js';

/** Everything needed to rebuild a trained retriever, except the word-vector table itself. */
export interface TrainedModel {
  features: FeatureConfig;
  projection: Projection;
  /** Cosine scale used in training (MNR). */
  scale: number;
  /** Name of the word-vector table the dense features need, or null. */
  wordVectors: string | null;
  /** Free-form provenance (training data, holdout, epochs, losses). */
  info: Record<string, unknown>;
  /** Weights of the learned linear ranker over field features (+ `trained`), when trained. */
  ranker?: { weights: Record<string, number>; scaled: string[]; info: Record<string, unknown> };
}

export interface TrainingPair {
  query: string;
  /** Index of the relevant document in the corpus texts (also the in-batch identity). */
  doc: number;
  /** Text to use for the document instead of the corpus text (e.g. a view without the field the query was made from). */
  docText?: string;
}

export interface TrainOptions {
  epochs?: number;
  batchSize?: number;
  lr?: number;
  /** Cosine scale of the MNR loss (default 20, as sentence-transformers). */
  scale?: number;
  seed?: number;
  /** Output dimension (default = input dimension; W starts as identity). */
  dOut?: number;
  /**
   * Group of a document (e.g. its category): batches are then drawn within one group at a time,
   * so in-batch negatives are hard negatives from the same group.
   */
  groupOf?: (doc: number) => number;
  /** Features of corpus document `doc` (default: `extractor.extract(corpus[doc])`). */
  docFeatures?: (doc: number) => SparseVector;
  onBatch?: (info: { epoch: number; batch: number; batches: number; loss: number }) => void;
  /** Checkpoints: `save` gets the state every `every` batches and at the end of each epoch. */
  checkpoint?: { every: number; save: (state: TrainState) => void };
  /** Continue from a saved state (same pairs, options and seed): the result equals an uninterrupted run. */
  resume?: TrainState;
}

/**
 * Where a training run is: the next batch of an epoch, how many random numbers the seeded
 * generator had given when that epoch began (so its shuffle can be replayed), the weights, the
 * optimiser's moments and the losses so far.
 */
export interface TrainState {
  epoch: number;
  nextBatch: number;
  randCalls: number;
  w: Float64Array;
  adam: { m: Float64Array; v: Float64Array; t: number };
  epochLosses: number[];
  /** Sum of the losses of this epoch's batches done so far. */
  lossSoFar: number;
}

export interface TrainedProjection {
  projection: Projection;
  /** Mean loss of each finished epoch. */
  epochLosses: number[];
}

/**
 * Trains W with the Multiple Negatives Ranking loss on (query, document) pairs over frozen
 * features: seeded shuffle each epoch, batches built so that no document appears twice in one
 * batch (a duplicate would be a false in-batch negative), Adam with lazy column updates.
 * Returns the projection and the mean loss of each epoch.
 */
export function trainProjection(
  extractor: FeatureExtractor,
  corpus: readonly string[],
  pairs: readonly TrainingPair[],
  opts: TrainOptions = {},
): TrainedProjection {
  const steps = projectionTraining(extractor, corpus, pairs, opts);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * `trainProjection` that gives the event loop a turn every `yieldEveryMs` (default 50), so a
 * Ctrl-C handler can run, and stops after the batch in progress once `signal` is aborted: the
 * projection then holds every update made so far, `stopped` is true and, with `checkpoint`, the
 * state at that batch is saved too, so a run resumed from it continues exactly there.
 */
export async function trainProjectionUntil(
  extractor: FeatureExtractor,
  corpus: readonly string[],
  pairs: readonly TrainingPair[],
  opts: TrainOptions & { signal?: AbortSignal; yieldEveryMs?: number } = {},
): Promise<TrainedProjection & { stopped: boolean }> {
  const steps = projectionTraining(extractor, corpus, pairs, opts);
  const every = opts.yieldEveryMs ?? 50;
  let last = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return { ...next.value, stopped: false };
    if (performance.now() - last >= every) {
      await new Promise((r) => setImmediate(r));
      last = performance.now();
    }
    if (opts.signal?.aborted) {
      // read before the generator moves on: the state describes this very batch
      if (opts.checkpoint && !next.value.checkpointed) opts.checkpoint.save(next.value.state());
      return { projection: next.value.projection, epochLosses: next.value.epochLosses, stopped: true };
    }
  }
}

/** What the training loop yields after each batch: the weights so far and how to resume from there. */
interface TrainingStep extends TrainedProjection {
  /** The resumable state at this batch (valid until the generator is resumed). */
  state: () => TrainState;
  /** True when `opts.checkpoint` has just saved this very state. */
  checkpointed: boolean;
}

/**
 * The training loop, one yield after each batch (after the epoch's end for its last batch) with
 * what a caller stopping there keeps; checkpoints are saved as `opts.checkpoint` asks.
 */
function* projectionTraining(
  extractor: FeatureExtractor,
  corpus: readonly string[],
  pairs: readonly TrainingPair[],
  opts: TrainOptions,
): Generator<TrainingStep, TrainedProjection> {
  const epochs = opts.epochs ?? 3;
  const batchSize = opts.batchSize ?? 64;
  const scale = opts.scale ?? 20;
  const seeded = mulberry32(opts.seed ?? 42);
  let randCalls = 0;
  const rand = () => {
    randCalls++;
    return seeded();
  };
  const p = identityProjection(extractor.dimension, opts.dOut ?? extractor.dimension);
  const adam = new Adam(p, opts.lr ?? 1e-3);
  const resume = opts.resume;
  if (resume) {
    if (resume.w.length !== p.w.length)
      throw new ApiaryError('USAGE', `checkpoint has ${resume.w.length} weights, this model ${p.w.length}`);
    p.w.set(resume.w);
    adam.restore(resume.adam);
    while (randCalls < resume.randCalls) rand();
  }
  const grad = new Float64Array(p.w.length);
  const qCache = new Map<string, SparseVector>();
  const dCache = new Map<string | number, SparseVector>();
  const qf = (t: string) => {
    let v = qCache.get(t);
    if (!v) {
      v = extractor.extract(t);
      qCache.set(t, v);
    }
    return v;
  };
  const df = (pair: TrainingPair) => {
    const key = pair.docText ?? pair.doc;
    let v = dCache.get(key);
    if (!v) {
      v =
        pair.docText !== undefined
          ? extractor.extract(pair.docText)
          : opts.docFeatures
            ? opts.docFeatures(pair.doc)
            : extractor.extract(corpus[pair.doc] as string);
      dCache.set(key, v);
    }
    return v;
  };
  const epochLosses: number[] = resume ? [...resume.epochLosses] : [];
  for (let epoch = resume?.epoch ?? 0; epoch < epochs; epoch++) {
    const epochRandCalls = randCalls;
    const order = shuffleInPlace([...pairs], rand);
    if (opts.groupOf) {
      // stable sort by group keeps the shuffled order inside each group; group order is shuffled too
      const groupRank = new Map<number, number>();
      for (const p of order) {
        const g = opts.groupOf(p.doc);
        if (!groupRank.has(g)) groupRank.set(g, groupRank.size);
      }
      order.sort(
        (a, b) =>
          (groupRank.get(opts.groupOf!(a.doc)) as number) - (groupRank.get(opts.groupOf!(b.doc)) as number),
      );
    }
    const batches: TrainingPair[][] = [];
    let pending = order;
    while (pending.length) {
      const next: TrainingPair[] = [];
      let batch: TrainingPair[] = [];
      let docs = new Set<number>();
      for (const pair of pending) {
        if (docs.has(pair.doc)) next.push(pair);
        else {
          batch.push(pair);
          docs.add(pair.doc);
          if (batch.length === batchSize) {
            batches.push(batch);
            batch = [];
            docs = new Set();
          }
        }
      }
      if (batch.length > 1) batches.push(batch);
      if (next.length === pending.length) break;
      pending = next;
    }
    const resumed = resume && epoch === resume.epoch;
    let total = resumed ? resume.lossSoFar : 0;
    if (opts.groupOf) shuffleInPlace(batches, rand);
    // mid-epoch: the epoch's shuffle is replayed from its first random number, then batches skipped
    const midEpoch = (nextBatch: number) => (): TrainState => ({
      epoch,
      nextBatch,
      randCalls: epochRandCalls,
      w: p.w.slice(),
      adam: adam.state(),
      epochLosses: [...epochLosses],
      lossSoFar: total,
    });
    const ck = opts.checkpoint;
    for (const [b, batch] of batches.entries()) {
      if (resumed && b < resume.nextBatch) continue;
      const { loss, touched } = mnrLossAndGrad(
        p,
        batch.map((x) => qf(x.query)),
        batch.map((x) => df(x)),
        scale,
        grad,
      );
      adam.step(grad, touched);
      total += loss;
      opts.onBatch?.({ epoch, batch: b, batches: batches.length, loss });
      if (b + 1 === batches.length) break; // the last batch is yielded with the epoch's end
      const state = midEpoch(b + 1);
      const checkpointed = Boolean(ck && (b + 1) % ck.every === 0);
      if (checkpointed) ck?.save(state());
      yield { projection: p, epochLosses: [...epochLosses], state, checkpointed };
    }
    epochLosses.push(batches.length ? total / batches.length : 0);
    const atEnd = (): TrainState => ({
      epoch: epoch + 1,
      nextBatch: 0,
      randCalls,
      w: p.w.slice(),
      adam: adam.state(),
      epochLosses: [...epochLosses],
      lossSoFar: 0,
    });
    ck?.save(atEnd());
    yield { projection: p, epochLosses: [...epochLosses], state: atEnd, checkpointed: Boolean(ck) };
  }
  return { projection: p, epochLosses };
}

/** Dense retrieval through a trained projection: cos(W x_q, W x_d) over all documents. */
export class TrainedRetriever implements Retriever {
  readonly name = 'trained';
  private constructor(
    readonly model: TrainedModel,
    readonly extractor: FeatureExtractor,
    readonly index: VectorIndex,
  ) {}

  static build(
    model: TrainedModel,
    corpus: readonly string[],
    table?: WordVectors,
    docFeatures?: (extractor: FeatureExtractor, doc: number) => SparseVector,
    opts: { into?: Float32Array; simd?: boolean } = {},
  ): TrainedRetriever {
    const extractor = new FeatureExtractor(model.features, table);
    if (extractor.dimension !== model.projection.dIn)
      throw new ApiaryError(
        'INPUT_INVALID',
        `model features have dimension ${extractor.dimension}, projection expects ${model.projection.dIn}`,
      );
    const dOut = model.projection.dOut;
    const size = corpus.length * dOut;
    if (opts.into && opts.into.length !== size)
      throw new RangeError(
        `vector buffer holds ${opts.into.length} floats, ${corpus.length} × ${dOut} needed`,
      );
    const data = opts.into ?? new Float32Array(size);
    const tmp = new Float64Array(dOut);
    corpus.forEach((text, i) => {
      project(model.projection, docFeatures ? docFeatures(extractor, i) : extractor.extract(text), tmp);
      writeNormalized(tmp, data, i * dOut);
    });
    return new TrainedRetriever(
      model,
      extractor,
      new VectorIndex(dOut, data, opts.simd === undefined ? {} : { simd: opts.simd }),
    );
  }

  embedQuery(query: string): Float32Array {
    const out = new Float32Array(this.model.projection.dOut);
    writeNormalized(project(this.model.projection, this.extractor.extract(query)), out, 0);
    return out;
  }

  async scoreAll(query: string): Promise<Float32Array> {
    return this.index.scoreAll(this.embedQuery(query));
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return this.index.search(this.embedQuery(query), k);
  }
}

function writeNormalized(v: Float64Array, out: Float32Array, at: number): void {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] as number) ** 2;
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < v.length; i++) out[at + i] = (v[i] as number) * inv;
}

// ---------------------------------------------------------------- file format
// "APRM0001" | u32 header length | header JSON (UTF-8) | zero padding to 8 | dIn·dOut f32 (W, column-major)

const MAGIC = 'APRM0001';

const HeaderSchema = z.object({
  format: z.literal('apiary-trained-retriever'),
  version: z.literal(1),
  dIn: z.number().int().positive(),
  dOut: z.number().int().positive(),
  scale: z.number(),
  wordVectors: z.string().nullable(),
  features: z.object({
    hashDim: z.number().int().positive(),
    alpha: z.number(),
    beta: z.number(),
    denseMean: z.array(z.number()),
    bucketIdf: z.array(z.number()),
  }),
  info: z.record(z.string(), z.unknown()),
  ranker: z
    .object({
      weights: z.record(z.string(), z.number()),
      scaled: z.array(z.string()),
      info: z.record(z.string(), z.unknown()),
    })
    .optional(),
});

export function encodeTrainedModel(model: TrainedModel): Buffer {
  const header = Buffer.from(
    JSON.stringify({
      format: 'apiary-trained-retriever',
      version: 1,
      dIn: model.projection.dIn,
      dOut: model.projection.dOut,
      scale: model.scale,
      wordVectors: model.wordVectors,
      features: model.features,
      info: model.info,
      ...(model.ranker ? { ranker: model.ranker } : {}),
    }),
    'utf8',
  );
  const pre = 12 + header.length;
  const pad = (8 - (pre % 8)) % 8;
  const head = Buffer.alloc(12);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(header.length, 8);
  const w = Float32Array.from(model.projection.w);
  return Buffer.concat([head, header, Buffer.alloc(pad), Buffer.from(w.buffer)]);
}

export function decodeTrainedModel(buf: Buffer, file: string): TrainedModel {
  if (buf.length < 12 || buf.toString('latin1', 0, 8) !== MAGIC)
    throw new ApiaryError('INPUT_INVALID', `${file}: not an Apiary trained-retriever model`);
  const len = buf.readUInt32LE(8);
  let json: unknown;
  try {
    json = JSON.parse(buf.toString('utf8', 12, 12 + len));
  } catch (error) {
    throw new ApiaryError('INPUT_INVALID', `${file}: model header is not valid JSON`, { cause: error });
  }
  const h = parseWith(HeaderSchema, json, { file, record: 'header' });
  const at = 12 + len + ((8 - ((12 + len) % 8)) % 8);
  const n = h.dIn * h.dOut;
  if (buf.length !== at + n * 4)
    throw new ApiaryError(
      'INPUT_INVALID',
      `${file}: expected ${n} weights after the header (truncated file?)`,
    );
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = buf.readFloatLE(at + i * 4);
  return {
    features: h.features,
    projection: { dIn: h.dIn, dOut: h.dOut, w },
    scale: h.scale,
    wordVectors: h.wordVectors,
    info: h.info,
    ...(h.ranker ? { ranker: h.ranker } : {}),
  };
}

/** Writes the model whole or not at all (temp file + rename): a failed save keeps the earlier file. */
export function saveTrainedModel(path: string, model: TrainedModel): void {
  writeFileAtomic(path, encodeTrainedModel(model));
}

export function loadTrainedModel(path: string): TrainedModel {
  return decodeTrainedModel(readBytesFile(path), path);
}

/**
 * Document features with group context: x(doc) = x(API text) + γ · x(text of its tool), so the
 * trained retriever, like `bm25-tool`, sees what the whole tool offers. Tool features are cached.
 */
export function contextFeatures(
  texts: readonly string[],
  groups: { texts: readonly string[]; groupOf: Uint32Array },
  gamma: number,
): (extractor: FeatureExtractor, doc: number) => SparseVector {
  const cache = new Map<number, SparseVector>();
  return (extractor, doc) => {
    const g = groups.groupOf[doc] as number;
    let t = cache.get(g);
    if (!t) {
      t = extractor.extract(groups.texts[g] as string);
      cache.set(g, t);
    }
    return mixSparse(extractor.extract(texts[doc] as string), 1, t, gamma);
  };
}
