/**
 * Entry of a sample worker thread (started by ./worker-pool.ts): rebuilds the task from the
 * recipe in `workerData`, then solves and scores the samples the main thread sends, one message
 * each. The main thread stays the only writer of the run folder.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ApiaryError } from '../shared/index.js';
import { type BlobLine, externalize } from './results-file.js';
import {
  errorMessage,
  type RebuiltTask,
  rebuildTask,
  runSampleById,
  TaskRecipeSchema,
} from './sample-runner.js';
import type { FromWorker, ToWorker, WorkerJob, WorkerResult } from './worker-messages.js';

const port = parentPort;
if (!port) throw new Error('sample-worker.ts runs as a worker thread');
const post = (m: FromWorker) => port.postMessage(m);

let abort = new AbortController();
const sentBlobs = new Set<string>();
let rebuilt: RebuiltTask;
try {
  rebuilt = await rebuildTask(TaskRecipeSchema.parse(workerData), undefined, abort.signal);
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
      if (run) run.output = externalize(run.output, sentBlobs, (b) => blobs.push(b));
      finish({ job: job.job, run, blobs });
    },
    (error) => post({ type: 'job-failed', job: job.job, message: errorMessage(error) }),
  );
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'abort') {
    abort.abort(new DOMException('run aborted', 'AbortError'));
    abort = new AbortController();
  } else if (m.type === 'close') {
    flush();
    post({ type: 'closed', ...(rebuilt.cache ? { cacheStats: { ...rebuilt.cache.stats } } : {}) });
    port.close();
  } else for (const job of m.jobs) run(job);
});
