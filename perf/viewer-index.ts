/**
 * The trace viewer on a large results file: indexing streams the file once and keeps one small
 * entry per record, so memory stays far below the file size; opening a sample reads one line.
 *
 *   node --expose-gc --import tsx perf/viewer-index.ts [--mb 1024] [--keep] [--file results.jsonl]
 *
 * Writes a results file of about `--mb` megabytes (records with a 6-step agent trace of ~7.7 KB;
 * `--file` reuses one kept earlier, so RSS is measured in a process that never held the writes),
 * then measures: index time and throughput, heap and RSS growth while indexing, one filtered
 * page of the sample list, and opening a sample (median of 50) through the HTTP route.
 */
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { minimalRunSpec } from '../src/harness/__fixtures__/run-spec.js';
import {
  filterSamples,
  indexRun,
  newViewerToken,
  SampleQuerySchema,
  viewerApp,
} from '../src/viewer/index.js';

const argMb = process.argv.indexOf('--mb');
const MB = argMb > 0 ? Number(process.argv[argMb + 1]) : 256;
const argFile = process.argv.indexOf('--file');
const dir = argFile > 0 ? '' : mkdtempSync(join(tmpdir(), 'apiary-viewer-perf-'));
const file = argFile > 0 ? process.argv[argFile + 1]! : join(dir, 'results.jsonl');

function record(i: number): string {
  const trace = [];
  for (let step = 1; step <= 6; step++) {
    trace.push({
      type: 'turn',
      step,
      sent: { messages: [{ role: 'user', content: `request ${i} step ${step} `.repeat(20) }] },
      reply: {
        text: `thinking about ${i}`,
        toolCalls: [{ id: `c${step}`, name: 'Search_find', input: { q: i } }],
      },
      decision: 'calls',
      usage: { inputTokens: 500, outputTokens: 20 },
      latencyMs: 40,
    });
    const rows = Array.from({ length: 8 }, (_, r) =>
      JSON.stringify({ id: r, name: `row ${r} of ${i}`, v: r * i }),
    );
    trace.push({
      type: 'call',
      step,
      id: `c${step}`,
      tool: 'Search_find',
      app: 'Search',
      api: 'find',
      args: { q: i },
      ok: step !== 3 || i % 10 !== 0,
      result: rows.join('\n'),
      durationMs: 5,
    });
  }
  trace.push({
    type: 'stop',
    step: 6,
    reason: 'final',
    answer: 'done',
    usage: { inputTokens: 3000, outputTokens: 120 },
    totalMs: 400,
  });
  return `${JSON.stringify({
    type: 'sample',
    id: `s-${i}`,
    epoch: 1,
    category: `c${i % 4}`,
    output: { trace },
    error: i % 50 === 0 ? 'MODEL_CALL_FAILED: HTTP 500' : null,
    usage: { inputTokens: 3000, outputTokens: 120 },
    modelCalls: 6,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 400 + (i % 100),
    score: i % 3 === 0 ? 1 : (i % 7) / 7,
  })}\n`;
}

const spec = minimalRunSpec({
  task: { name: 'perf', version: '1', options: {} },
  solver: { name: 's', options: {} },
  data: { path: dir, sha256: null },
  size: 0,
});
let t = performance.now();
if (argFile < 0) writeRun();
function writeRun() {
  const fd = openSync(file, 'w');
  writeSync(fd, `${JSON.stringify({ type: 'header', spec })}\n`);
  let bytes = 0;
  let n = 0;
  const batch: string[] = [];
  while (bytes < MB * 1024 * 1024) {
    const line = record(n++);
    bytes += line.length;
    batch.push(line);
    if (batch.length === 500) writeSync(fd, batch.splice(0).join(''));
  }
  writeSync(fd, batch.join(''));
  closeSync(fd);
  console.log(`wrote ${n} records in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
const size = statSync(file).size;

global.gc?.();
const heap0 = process.memoryUsage().heapUsed;
let rssPeak = process.memoryUsage().rss;
const rss0 = rssPeak;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
}, 20);
t = performance.now();
const index = await indexRun(file);
const indexMs = performance.now() - t;
clearInterval(sampler);
global.gc?.();
const heap1 = process.memoryUsage().heapUsed;
console.log(
  `index: ${index.samples.length} records, ${(size / 1e6).toFixed(0)} MB in ${(indexMs / 1000).toFixed(2)} s = ${(size / 1e6 / (indexMs / 1000)).toFixed(0)} MB/s`,
);
console.log(
  `memory: heap +${((heap1 - heap0) / 1e6).toFixed(1)} MB after indexing (${((heap1 - heap0) / index.samples.length) | 0} B/record); RSS peak +${((rssPeak - rss0) / 1e6).toFixed(0)} MB over ${(rss0 / 1e6).toFixed(0)} MB`,
);

t = performance.now();
const page = filterSamples(
  index.samples,
  SampleQuerySchema.parse({ error: 'tool', min: '0.5' }),
  index.metricNames,
);
console.log(
  `filter (tool errors, score ≥ 0.5): ${page.total} of ${index.samples.length} in ${(performance.now() - t).toFixed(1)} ms`,
);

const token = newViewerToken();
const app = viewerApp(index, { token });
const times: number[] = [];
for (let k = 0; k < 50; k++) {
  const i = Math.floor((k / 50) * index.samples.length);
  t = performance.now();
  const res = await app.request(`http://127.0.0.1/api/samples/${i}?token=${token}`);
  await res.arrayBuffer();
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log(
  `open a sample over HTTP route: median ${times[25]!.toFixed(2)} ms, max ${times[49]!.toFixed(2)} ms`,
);
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
if (dir && !process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
else if (dir) console.log(`kept ${file}`);
