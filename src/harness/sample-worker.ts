/**
 * Entry of a sample worker thread (started by ./worker-pool.ts): loads the task from the recipe in
 * `workerData` as `evaluate` does (`loadTaskFromRecipe`: its plugin modules imported first), then solves and scores the samples the main thread sends. Two ways:
 * `run` jobs come back as sample runs (the main thread builds and writes their lines); a streamed
 * run (`stream`, then `jobs`) keeps a local queue, starts the next sample as soon as one finishes,
 * and sends back finished lines, serialised here. The main thread stays the only writer of the run folder.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { costOf, ZERO_USAGE } from '../models/index.js';
import { ApiaryError } from '../shared/index.js';
import { type BlobLine, externalize, type SampleLine, sampleLineText } from './results-file.js';
import {
  errorMessage,
  loadTaskFromRecipe,
  type RebuiltTask,
  runSampleById,
  type SampleRun,
} from './sample-runner.js';
import type {
  FromWorker,
  StreamedLine,
  StreamJob,
  StreamSettings,
  ToWorker,
  WorkerJob,
  WorkerResult,
} from './worker-messages.js';

const port = parentPort;
if (!port) throw new Error('sample-worker.ts runs as a worker thread');
const post = (m: FromWorker) => port.postMessage(m);

let abort = new AbortController();
const sentBlobs = new Set<string>();
let rebuilt: RebuiltTask;
try {
  rebuilt = await loadTaskFromRecipe(workerData, { signal: abort.signal });
  post({ type: 'ready' });
} catch (error) {
  post({
    type: 'load-failed',
    code: error instanceof ApiaryError ? error.code : null,
    message: error instanceof ApiaryError ? error.message : errorMessage(error),
  });
  port.close();
  process.exit(1);
}

let done: WorkerResult[] = [];
const flush = () => {
  const results = done;
  done = [];
  if (results.length) post({ type: 'results', results });
};
const finish = (result: WorkerResult) => {
  if (done.length === 0) setImmediate(flush);
  done.push(result);
};

function run(job: WorkerJob): void {
  runSampleById(rebuilt, job.id, { seed: job.seed, epoch: job.epoch, signal: abort.signal }).then(
    (run) => {
      // the catalog-long system prompt of every sample is copied between threads once, not per sample
      const blobs: BlobLine[] = [];
      if (run) {
        run.output = externalize(run.output, sentBlobs, (b) => blobs.push(b));
        run.events = externalize(run.events, sentBlobs, (b) => blobs.push(b)) as typeof run.events;
      }
      finish({ job: job.job, run, blobs });
    },
    (error) => post({ type: 'job-failed', job: job.job, message: errorMessage(error) }),
  );
}

/** The streamed run in progress: its settings, the local queue and what finished this turn. */
let stream: {
  settings: StreamSettings;
  queue: StreamJob[];
  inFlight: number;
  lines: StreamedLine[];
  blobs: BlobLine[];
  ended: number;
  flushing: boolean;
  /** Batches posted so far. */
  posted: number;
  /**
   * After an endpoint failure: the batch that reports it, which the main thread must have
   * answered before this worker starts more (0: not held).
   */
  heldUntil: number;
} | null = null;

const flushStream = () => {
  if (!stream) return;
  stream.flushing = false;
  const { lines, blobs, ended } = stream;
  if (ended === 0) return;
  stream.lines = [];
  stream.blobs = [];
  stream.ended = 0;
  post({ type: 'lines', run: stream.settings.run, batch: ++stream.posted, lines, blobs, ended });
};
/** One job left this worker's hands; they are reported together once per event-loop turn. */
const ended = (s: NonNullable<typeof stream>) => {
  s.ended++;
  if (!s.flushing) {
    s.flushing = true;
    setImmediate(flushStream);
  }
};

/** The sample's results line, as the main thread's writer would serialise it. */
function streamedLine(
  s: NonNullable<typeof stream>,
  job: StreamJob,
  run: SampleRun,
  startedAt: string,
  durationMs: number,
): StreamedLine {
  const { price } = s.settings;
  const record: SampleLine = {
    type: 'sample',
    id: job.id,
    epoch: job.epoch,
    category: rebuilt.samplesById.get(job.id)?.category ?? null,
    output: run.output,
    error: run.error,
    usage: run.usage,
    ...(price ? { cost: costOf(run.usage ?? ZERO_USAGE, price) } : {}),
    modelCalls: run.modelCalls,
    startedAt,
    durationMs: Math.round(durationMs * 1000) / 1000,
    score: run.score,
    events: run.events,
  };
  const blobRefs: string[] = [];
  const text = sampleLineText(record, new Set(), (b) => {
    blobRefs.push(b.sha256);
    // the catalog-long system prompt crosses threads once per worker, as a reference after that
    if (!sentBlobs.has(b.sha256)) {
      sentBlobs.add(b.sha256);
      s.blobs.push(b);
    }
  });
  return {
    text,
    blobRefs,
    record: { ...record, output: null, events: [] },
    infrastructureFailure: run.infrastructureFailure,
    connectionFailure: run.connectionFailure,
  };
}

/** Starts queued samples while this worker's share of the concurrency allows. */
function pump(s: NonNullable<typeof stream>): void {
  while (s.heldUntil === 0 && s.inFlight < s.settings.concurrency && s.queue.length > 0) {
    const job = s.queue.shift()!;
    s.inFlight++;
    const startedAt = new Date().toISOString();
    const start = performance.now();
    runSampleById(rebuilt, job.id, { seed: s.settings.seed, epoch: job.epoch, signal: abort.signal }).then(
      (run) => {
        s.inFlight--;
        if (run) s.lines.push(streamedLine(s, job, run, startedAt, performance.now() - start));
        // the endpoint may be down or broken: start nothing more until the main thread, which counts
        // the failures in a row over all workers, answers (it stops the run or sends more jobs)
        if (run?.infrastructureFailure) s.heldUntil = s.posted + 1;
        ended(s);
        if (stream === s) pump(s);
      },
      (error) => {
        s.inFlight--;
        // a streamed job has no number: the main thread fails the worker as a whole
        post({ type: 'job-failed', job: -1, message: errorMessage(error) });
        ended(s);
      },
    );
  }
}

/** Drops the jobs not started yet (they count as ended: the main thread stops waiting for them). */
function dropQueue(s: NonNullable<typeof stream>): void {
  const dropped = s.queue.length;
  s.queue = [];
  if (dropped === 0) return;
  s.ended += dropped - 1;
  ended(s);
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'abort') {
    if (stream) dropQueue(stream);
    abort.abort(new DOMException('run aborted', 'AbortError'));
    abort = new AbortController();
  } else if (m.type === 'close') {
    flush();
    flushStream();
    post({ type: 'closed', ...(rebuilt.cache ? { cacheStats: { ...rebuilt.cache.stats } } : {}) });
    port.close();
  } else if (m.type === 'stream') {
    flushStream();
    stream = {
      settings: m.settings,
      queue: [],
      inFlight: 0,
      lines: [],
      blobs: [],
      ended: 0,
      flushing: false,
      posted: 0,
      heldUntil: 0,
    };
  } else if (m.type === 'jobs') {
    if (stream?.settings.run !== m.run) return;
    for (const job of m.jobs) stream.queue.push(job);
    // an answer to an older batch does not release a hold for a failure reported since
    if (m.answers !== undefined && m.answers >= stream.heldUntil) stream.heldUntil = 0;
    pump(stream);
  } else if (m.type === 'stop') {
    if (stream?.settings.run === m.run) dropQueue(stream);
  } else for (const job of m.jobs) run(job);
});
