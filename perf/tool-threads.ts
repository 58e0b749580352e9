/**
 * What running Calculator and DrawBox on a tool worker thread (src/benchmarks/gta/tools/tool-threads.ts)
 * adds per call, against the same work on the calling thread (as before issue 24).
 *
 *   npx tsx perf/tool-threads.ts [--runs N]
 *
 * Calls alternate between the two ways so machine load hits both alike; the pool is warm (its
 * first call, which starts a thread and loads mathjs or jimp there, is reported on its own).
 * Reported: median and p95 in ms over N calls each (default 50), and the median's difference.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Jimp } from 'jimp';
import { calculate, calculatorTool } from '../src/benchmarks/gta/tools/calculator.js';
import { drawBoxTool } from '../src/benchmarks/gta/tools/draw-box.js';
import { readCheckedImage } from '../src/benchmarks/gta/tools/image-limits.js';
import { renderDrawBox } from '../src/benchmarks/gta/tools/image-render.js';
import { writeImageResult } from '../src/benchmarks/gta/tools/image-result.js';
import { sha256Hex } from '../src/shared/index.js';

const RUNS = process.argv.includes('--runs') ? Number(process.argv[process.argv.indexOf('--runs') + 1]) : 50;
const dir = mkdtempSync(join(tmpdir(), 'apiary-perf-tool-threads-'));
const image = join(dir, 'photo.png');
await new Jimp({ width: 640, height: 480, color: 0x3366ccff }).write(image as `${string}.png`);
const outputDir = join(dir, 'out');

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
const ms = (x: number) => `${x.toFixed(2)} ms`;

async function compare(
  name: string,
  inThread: (i: number) => Promise<unknown>,
  pooled: (i: number) => Promise<unknown>,
) {
  const t0 = performance.now();
  await pooled(-1);
  console.log(`${name}: first pooled call (thread start + module load) ${ms(performance.now() - t0)}`);
  await inThread(-1);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    await inThread(i);
    a.push(performance.now() - t);
    t = performance.now();
    await pooled(i);
    b.push(performance.now() - t);
  }
  a.sort((x, y) => x - y);
  b.sort((x, y) => x - y);
  console.log(`  in-thread  median ${ms(quantile(a, 0.5))}, p95 ${ms(quantile(a, 0.95))}`);
  console.log(`  on a tool thread  median ${ms(quantile(b, 0.5))}, p95 ${ms(quantile(b, 0.95))}`);
  console.log(`  added per call (median of ${RUNS}): ${ms(quantile(b, 0.5) - quantile(a, 0.5))}`);
}

const calculator = calculatorTool();
const expression = (i: number) => `${i + 2}*3.5+60//7`;
await compare(
  'Calculator',
  async (i) => calculate(expression(i)),
  (i) => calculator.run({ expression: expression(i) }, { outputDir, readable: [] }),
);

const drawBox = drawBoxTool();
const bbox = (i: number) => ({ x1: 10 + (i & 63), y1: 10, x2: 300, y2: 200 });
await compare(
  'DrawBox (640×480 PNG)',
  async (i) => {
    const box = bbox(i);
    const { bytes } = await readCheckedImage('DrawBox', image);
    const png = await renderDrawBox({ kind: 'draw-box', image: bytes, what: image, box, annotation: 'cat' });
    return writeImageResult(png, outputDir, 'DrawBox', [sha256Hex(bytes), box, 'cat', 'in-thread']);
  },
  (i) => {
    const { x1, y1, x2, y2 } = bbox(i);
    return drawBox.run(
      { image, bbox: `(${x1}, ${y1}, ${x2}, ${y2})`, annotation: 'cat' },
      { outputDir, readable: [image] },
    );
  },
);

await Promise.all([calculator.dispose?.(), drawBox.dispose?.()]);
rmSync(dir, { recursive: true, force: true });
