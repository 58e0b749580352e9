/** Scoring throughput: the §10 worked-example record replicated N times, scored in both modes. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  parseResultRecords,
  scoreResultRecord,
  summarizeShortcuts,
} from '../src/benchmarks/shortcutsbench/index.js';

const n = Number(process.argv[2] ?? 20000);
const line = readFileSync(
  join(import.meta.dirname, '../src/benchmarks/shortcutsbench/__fixtures__/worked-example.results.jsonl'),
  'utf8',
).trim();
const text = `${Array.from({ length: n }, () => line).join('\n')}\n`;
const t0 = performance.now();
const records = parseResultRecords(text, 'replicated');
const t1 = performance.now();
const scores = records.map((r) => scoreResultRecord(r, new Map(), () => undefined));
summarizeShortcuts(scores, 'official');
summarizeShortcuts(scores, 'corrected');
const t2 = performance.now();
const rate = (ms: number) => Math.round((n / ms) * 1000);
console.log(
  `${n} records: parse ${rate(t1 - t0)} records/s, score+summarize ${rate(t2 - t1)} records/s, total ${rate(t2 - t0)} records/s`,
);
