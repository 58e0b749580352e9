/**
 * Gold-file streaming: a synthetic `1_final_detailed_records_filter_apis_leq_30.json` of SIZE MB
 * (default 200; the authored records repeated under new URLs, written to a temp folder, not
 * committed), read record by record (`streamGoldRecords`, nothing retained) and, for comparison,
 * whole (`loadGoldShortcuts`). Each read runs in its own process so peak RSS is its own.
 *
 *   npx tsx perf/shortcuts-gold-stream.ts [SIZE_MB] [--whole]
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadGoldShortcuts, streamGoldRecords } from '../src/benchmarks/shortcutsbench/index.js';

const GOLD = '1_final_detailed_records_filter_apis_leq_30.json';

async function child(mode: string, dir: string): Promise<void> {
  const t0 = performance.now();
  let n = 0;
  if (mode === 'stream') for await (const _ of streamGoldRecords(join(dir, GOLD))) n++;
  else n = loadGoldShortcuts(dir).size;
  const s = (performance.now() - t0) / 1000;
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ mode, records: n, seconds: s, recordsPerSecond: n / s, peakRssMb: rssMb }));
}

function writeSynthetic(dir: string, sizeMb: number): number {
  const authored = JSON.parse(
    readFileSync(
      join(import.meta.dirname, '../src/benchmarks/shortcutsbench/__fixtures__/authored', GOLD),
      'utf8',
    ),
  ) as { URL: string }[];
  const texts = authored.map((r) => JSON.stringify(r, null, 2));
  const fd = openSync(join(dir, GOLD), 'w');
  writeSync(fd, '[\n');
  let written = 2;
  let n = 0;
  while (written < sizeMb * 1024 * 1024) {
    const t = texts[n % texts.length]!.replace(/"URL": "([^"]+)"/, `"URL": "$1-${n}"`);
    const piece = `${n ? ',\n' : ''}${t}`;
    writeSync(fd, piece);
    written += Buffer.byteLength(piece);
    n++;
  }
  writeSync(fd, '\n]\n');
  closeSync(fd);
  return n;
}

const [, , a1, a2] = process.argv;
if (a1 === '--child') await child(a2!, process.argv[4]!);
else {
  const sizeMb = Number(a1 ?? 200);
  const dir = mkdtempSync(join(tmpdir(), 'apiary-gold-perf-'));
  try {
    const n = writeSynthetic(dir, sizeMb);
    console.log(
      `synthetic gold file: ${(statSync(join(dir, GOLD)).size / 1048576).toFixed(0)} MB, ${n} records`,
    );
    const tsx = pathToFileURL(join(import.meta.dirname, '../node_modules/tsx/dist/loader.mjs')).href;
    const modes = process.argv.includes('--whole') ? ['stream', 'whole'] : ['stream'];
    for (const mode of modes) {
      const r = spawnSync(
        process.execPath,
        ['--max-old-space-size=8192', '--import', tsx, import.meta.filename, '--child', mode, dir],
        { encoding: 'utf8' },
      );
      process.stdout.write(r.stdout || r.stderr);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
