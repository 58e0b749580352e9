/**
 * Latency of GTA's local tools, per call, through their app handlers (as dispatchCall runs them).
 *
 *   npx tsx perf/gta-tools.ts [--runs N]
 *
 * On one rendered 640×240 PNG with three lines of text: OCR (the first call includes starting the
 * tesseract.js worker and loading the English data; then warm calls), Calculator (first call
 * loads mathjs; then warm calls), DrawBox,
 * AddText, and a DrawBox call replayed from a recording. Baselines in the same run: reading the
 * image file, and reading plus decoding it with jimp (what every image tool does first).
 * Reported: median and p95 in ms over N runs (default 20).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Jimp, loadFont } from 'jimp';
import { SANS_32_BLACK } from 'jimp/fonts';
import type { AppHandler } from '../src/apps/index.js';
import { disposeTools, gtaToolHandlers, gtaTools } from '../src/benchmarks/gta/tools/registry.js';
import { ToolRecording } from '../src/tools/index.js';

const RUNS = process.argv.includes('--runs') ? Number(process.argv[process.argv.indexOf('--runs') + 1]) : 20;
const dir = mkdtempSync(join(tmpdir(), 'apiary-perf-gta-tools-'));
const image = join(dir, 'menu.png');

const font = await loadFont(SANS_32_BLACK);
const img = new Jimp({ width: 640, height: 240, color: 0xffffffff });
['Tea 4.50', 'Cake 8.00', 'Total 12.50'].forEach((text, i) => {
  img.print({ font, x: 30, y: 20 + i * 70, text });
});
await img.write(image as `${string}.png`);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
const rows: Array<[string, string]> = [];
async function measure(name: string, fn: (i: number) => Promise<unknown>): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  rows.push([
    name,
    `median ${quantile(times, 0.5).toFixed(2)} ms, p95 ${quantile(times, 0.95).toFixed(2)} ms`,
  ]);
}

const tools = gtaTools({}, ['OCR', 'Calculator', 'DrawBox', 'AddText']);
const handlers = new Map(
  gtaToolHandlers(tools, { outputDir: join(dir, 'out'), readable: [] }).map((h) => [h.appId, h]),
);
const call = (tool: string, args: Record<string, unknown>) =>
  (handlers.get(tool) as AppHandler).call(tool, args, { caller: `tool:${tool}` });

await measure('baseline: read the image file', async () => readFileSync(image));
await measure('baseline: read + decode it (jimp)', async () => Jimp.read(image));

const t0 = performance.now();
const first = await call('OCR', { image });
rows.push(['OCR, first call (worker start + data load)', `${(performance.now() - t0).toFixed(0)} ms`]);
await measure('OCR, warm', () => call('OCR', { image }));
const t1 = performance.now();
await call('Calculator', { expression: '1+1' });
rows.push(['Calculator, first call (loads mathjs)', `${(performance.now() - t1).toFixed(0)} ms`]);
const expressions = ['4+8', '3.5*60', 'round(math.sqrt(2)*100)/100', '2**100 // 3', 'math.factorial(30) % 7'];
await measure('Calculator', (i) => call('Calculator', { expression: expressions[i % expressions.length] }));
await measure('DrawBox', (i) =>
  call('DrawBox', { image, bbox: `(${20 + i}, 20, 300, 80)`, annotation: 'Tea' }),
);
await measure('AddText', (i) =>
  call('AddText', { image, text: `Total ${i}`, position: 'rb', color: 'blue' }),
);

const recording = new ToolRecording(join(dir, 'rec'), 'record-missing');
const [recorded] = gtaToolHandlers(gtaTools({}, ['DrawBox']), {
  outputDir: join(dir, 'replayed'),
  recording,
  readable: [],
});
const boxArgs = { image, bbox: '(20, 20, 300, 80)', annotation: 'Tea' };
await (recorded as AppHandler).call('DrawBox', boxArgs, { caller: 'tool:DrawBox' });
await measure('DrawBox replayed from a recording', () =>
  (recorded as AppHandler).call('DrawBox', boxArgs, { caller: 'tool:DrawBox' }),
);
await disposeTools(tools);

console.log(`GTA tools, ${RUNS} runs each (${process.version}, ${process.platform})`);
const w = Math.max(...rows.map(([n]) => n.length));
for (const [name, value] of rows) console.log(`  ${name.padEnd(w)}  ${value}`);
console.log(`  recording: ${JSON.stringify(recording.stats)}`);
console.log(
  `  OCR text:\n${(first as { content: Array<{ text: string }> }).content[0]?.text.replace(/^/gm, '    ')}`,
);
rmSync(dir, { recursive: true, force: true });
