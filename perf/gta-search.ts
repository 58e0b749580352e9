/**
 * Offline GoogleSearch at scale: writes a synthetic JSONL corpus of N documents (default 100 000,
 * ~60 words each from a 5 000-word vocabulary), then times the first search (read + BM25 index)
 * and the mean of 200 further searches through the tool (rendering included).
 *   npx tsx perf/gta-search.ts [N]
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { googleSearchTool } from '../src/benchmarks/gta/tools/search.js';
import { mulberry32 } from '../src/shared/index.js';
import { offlineSearchProvider } from '../src/tools/index.js';

const n = Number(process.argv[2] ?? 100_000);
const rand = mulberry32(7);
const vocab = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x`);
// Zipf-like word choice: frequent words are frequent
const word = () => vocab[Math.floor(vocab.length * rand() ** 2)]!;
const sentence = (len: number) => Array.from({ length: len }, word).join(' ');

const dir = mkdtempSync(join(tmpdir(), 'apiary-perf-search-'));
const corpus = join(dir, 'corpus.jsonl');
const lines: string[] = [];
for (let i = 0; i < n; i++)
  lines.push(JSON.stringify({ title: sentence(5), url: `https://doc.example/${i}`, text: sentence(60) }));
writeFileSync(corpus, `${lines.join('\n')}\n`);

const tool = googleSearchTool({ provider: offlineSearchProvider({ corpus }) });
const ctx = { outputDir: dir, readable: [] };
let t0 = performance.now();
await tool.run({ query: sentence(4), k: 10 }, ctx);
const firstMs = performance.now() - t0;
const queries = Array.from({ length: 200 }, () => sentence(4));
t0 = performance.now();
for (const query of queries) await tool.run({ query, k: 10 }, ctx);
const queryMs = (performance.now() - t0) / queries.length;
process.stdout.write(
  `${JSON.stringify({
    docs: n,
    corpusMB: Math.round(statSync(corpus).size / 1e5) / 10,
    firstSearchMs: Math.round(firstMs),
    searchMs: Math.round(queryMs * 100) / 100,
    maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  })}\n`,
);
rmSync(dir, { recursive: true, force: true });
