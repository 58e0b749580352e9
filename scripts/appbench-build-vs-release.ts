/**
 * How close `apiary data build appbench` comes to the released AppBench data (issue 29, item 2).
 *
 *   npx tsx scripts/appbench-build-vs-release.ts [DATA_DIR] [--refs value|name] [--repeats all|last] [--list]
 *
 * DATA_DIR (default ../shared/data) holds appbench/dev_{ss,sm,ms,mm}.json (the first 50 records of
 * each released test file) and sgd/ (an SGD release). For each record: the SGD dialogue(s) its
 * literal values come from, the builder's planning path for them, and whether it equals the gold
 * plan under the corrected scorer's success; then the kinds of difference. `--list` prints every
 * record that differs. Without --refs / --repeats, prints the figure for every pair of rules.
 */
import { join, resolve } from 'node:path';
import { registerBuiltinPlugins } from '../src/benchmarks/builtin.js';
import { appBenchCatalogSource } from '../src/benchmarks/appbench/catalog.js';
import { compareWithRelease, type ReleaseRecord } from '../src/benchmarks/appbench/build/compare-release.js';
import {
  REFERENCE_RULES,
  REPEAT_RULES,
  type ReferenceRule,
  type RepeatRule,
} from '../src/benchmarks/appbench/build/planning-path.js';
import { readSgdDialogues } from '../src/benchmarks/appbench/build/sgd-source.js';
import { APPBENCH_CATEGORIES, readAppBenchFile } from '../src/benchmarks/appbench/record.js';

registerBuiltinPlugins();
const args = process.argv.slice(2);
const valueOf = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const dataDir = resolve(
  args.find((a, i) => !a.startsWith('--') && !['--refs', '--repeats'].includes(args[i - 1] ?? '')) ??
    '../shared/data',
);
const refRules = valueOf('--refs') ? [valueOf('--refs') as ReferenceRule] : [...REFERENCE_RULES];
const repeatRules = valueOf('--repeats') ? [valueOf('--repeats') as RepeatRule] : [...REPEAT_RULES];
const rules = repeatRules.flatMap((repeats) => refRules.map((refs) => ({ refs, repeats })));
const list = args.includes('--list');

const records: ReleaseRecord[] = APPBENCH_CATEGORIES.flatMap((category) =>
  readAppBenchFile(join(dataDir, 'appbench', `dev_${category}.json`)).map((record, i) => ({
    id: `dev_${category}#${i}`,
    category,
    record,
  })),
);
const dialogues = readSgdDialogues(join(dataDir, 'sgd'));
const catalog = appBenchCatalogSource.load({});
const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '—');

for (const rule of rules) {
  const rows = compareWithRelease(records, dialogues, catalog, rule);
  const label = `--refs ${rule.refs} --repeats ${rule.repeats}`;
  const sourced = rows.filter((r) => !r.differences.includes('source not found'));
  const ok = sourced.filter((r) => r.success);
  process.stdout.write(
    `${label}: ${ok.length}/${sourced.length} built plans equal the gold plan (corrected success ${pct(ok.length, sourced.length)}); ${rows.length - sourced.length} of ${rows.length} records have no source dialogue in ${join(dataDir, 'sgd')}\n`,
  );
  for (const c of APPBENCH_CATEGORIES) {
    const s = sourced.filter((r) => r.category === c);
    const o = s.filter((r) => r.success).length;
    process.stdout.write(`  ${c}: ${o}/${s.length} (${pct(o, s.length)})\n`);
  }
  const scaled = sourced.filter((r) => r.scale);
  const sameScale = scaled.filter((r) => r.scale!.gold.join() === r.scale!.built.join()).length;
  const mean = (rs: typeof scaled, side: 'gold' | 'built', i: 0 | 1) =>
    (rs.reduce((n, r) => n + r.scale![side][i], 0) / (rs.length || 1)).toFixed(2);
  process.stdout.write(
    `  parallel/sequential scale equal on ${sameScale}/${scaled.length}; mean gold → built: ${APPBENCH_CATEGORIES.map((c) => {
      const rs = scaled.filter((r) => r.category === c);
      return `${c} ${mean(rs, 'gold', 0)}/${mean(rs, 'gold', 1)} → ${mean(rs, 'built', 0)}/${mean(rs, 'built', 1)}`;
    }).join(', ')}\n`,
  );
  const kinds = new Map<string, number>();
  for (const r of sourced) for (const k of r.differences) kinds.set(k, (kinds.get(k) ?? 0) + 1);
  process.stdout.write('  differences (records showing each kind):\n');
  for (const [k, n] of [...kinds].sort((a, b) => b[1] - a[1])) process.stdout.write(`    ${k}: ${n}\n`);
  if (list)
    for (const r of sourced.filter((x) => !x.success))
      process.stdout.write(
        `  ${r.id} ${r.sources.join('+')}: ${r.differences.join(', ')}${r.detail ? ` (${r.detail})` : ''}\n`,
      );
}
