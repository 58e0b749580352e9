/**
 * Child process of bench/retrieval.ts: loads the GloVe table (converting it when the cache file
 * does not exist) and prints {from, ms, maxRssMB} as JSON. Run alone:
 *   npx tsx perf/retrieval-load.ts <cache-file>
 */
import { loadWordVectors } from '../src/retrieval/index.js';

const cachePath = process.argv[2];
const t0 = performance.now();
const { from, table } = loadWordVectors(cachePath ? { cachePath } : {});
const ms = performance.now() - t0;
process.stdout.write(
  `${JSON.stringify({ from, ms: Math.round(ms), words: table.size, maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`,
);
