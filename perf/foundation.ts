/**
 * Foundation benchmark (issue: catalog + plan model). Run: `npx tsx perf/foundation.ts [DATA_DIR]`
 *
 * 1. Loading the ToolBench catalog (46,802 APIs): wall time and peak RSS, each measured in a fresh
 *    child process; baseline = reading tools.jsonl and JSON.parse of every line (no catalog).
 * 2. Parsing + validating every AppBench dev gold plan: median of 20 runs; baseline = JSON.parse
 *    of the four dev files.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dataDir = resolve(
  process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : '../shared/data',
);
const self = fileURLToPath(import.meta.url);

async function child(mode: string): Promise<void> {
  const t0 = performance.now();
  if (mode === 'raw-jsonl') {
    const text = readFileSync(join(dataDir, 'toolbench/tools.jsonl'), 'utf8');
    let n = 0;
    for (const line of text.split('\n'))
      if (line.trim()) n += (JSON.parse(line) as { api_list: unknown[] }).api_list.length;
    if (n !== 46802) throw new Error(`expected 46802 APIs, got ${n}`);
  } else {
    const { toolBenchCatalogSource } = await import('../src/benchmarks/toolbench/catalog.js');
    const c = toolBenchCatalogSource.load({ dataDir });
    if (c.apis.length !== 46802) throw new Error(`expected 46802 APIs, got ${c.apis.length}`);
  }
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
}

function runChild(mode: string): { ms: number; maxRssMb: number } {
  const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--child', mode, dataDir], {
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const mode = process.argv.indexOf('--child');
  if (mode >= 0) {
    await child(process.argv[mode + 1]!);
    return;
  }
  const raw = runChild('raw-jsonl');
  const cat = runChild('catalog');
  console.log('ToolBench catalog load (fresh process each)');
  console.log(`  baseline JSON.parse only : ${raw.ms.toFixed(0)} ms, peak RSS ${raw.maxRssMb.toFixed(0)} MB`);
  console.log(
    `  loadCatalog('toolbench') : ${cat.ms.toFixed(0)} ms (${(cat.ms / raw.ms).toFixed(2)}× baseline), peak RSS ${cat.maxRssMb.toFixed(0)} MB (${(cat.maxRssMb / raw.maxRssMb).toFixed(2)}× baseline)  [targets < 3000 ms, < 500 MB]`,
  );

  const { indexCatalog } = await import('../src/catalog/index.js');
  const { appBenchCatalogSource } = await import('../src/benchmarks/appbench/catalog.js');
  const { validatePlan } = await import('../src/plan/index.js');
  const { appBenchGoldPlan, parseAppBenchFile } = await import('../src/benchmarks/appbench/index.js');
  const catalog = appBenchCatalogSource.load({ dataDir });
  const index = indexCatalog(catalog);
  const texts = ['ss', 'sm', 'ms', 'mm'].map((c) => {
    const file = join(dataDir, `appbench/dev_${c}.json`);
    return [readFileSync(file, 'utf8'), file] as const;
  });
  const base: number[] = [];
  const full: number[] = [];
  let plans = 0;
  for (let r = 0; r < 20; r++) {
    let t = performance.now();
    for (const [text] of texts) JSON.parse(text);
    base.push(performance.now() - t);
    t = performance.now();
    plans = 0;
    for (const [text, file] of texts)
      for (const rec of parseAppBenchFile(text, file)) {
        validatePlan(appBenchGoldPlan(rec, catalog).plan, index);
        plans++;
      }
    full.push(performance.now() - t);
  }
  console.log(`AppBench dev gold plans (${plans}): parse records + build plans + validate, median of 20`);
  console.log(`  baseline JSON.parse of the files : ${median(base).toFixed(2)} ms`);
  console.log(
    `  parse + validate                 : ${median(full).toFixed(2)} ms (${(median(full) / median(base)).toFixed(1)}× baseline)  [target < 50 ms]`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
