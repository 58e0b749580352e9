import { resolve } from 'node:path';
import type { Command } from 'commander';
import { APPBENCH_CATEGORIES, appBenchFileName, pullAppBench } from '../../benchmarks/appbench/index.js';
import { GTA_ARCHIVE, pullGta } from '../../benchmarks/gta/index.js';
import { ApiaryError } from '../../shared/index.js';
import { parseChoice, parseKeyValues } from '../options.js';
import { printJson } from '../output.js';

interface PullFlags {
  dir?: string;
  url?: string;
  force?: boolean;
  sha256: string[];
  json?: boolean;
}

const FILES: readonly string[] = APPBENCH_CATEGORIES.map(appBenchFileName);

/** `--sha256 FILE=HASH` (repeatable) → { FILE: lower-case hash }. */
function pins(values: readonly string[], files: readonly string[] = FILES): Record<string, string> {
  const pinned = parseKeyValues('--sha256', values, {
    shape: 'FILE=HASH',
    keys: files,
    value: { pattern: /^[0-9a-fA-F]{64}$/, meaning: 'a 64-hex-digit sha256' },
  });
  return Object.fromEntries(Object.entries(pinned).map(([file, hash]) => [file, hash.toLowerCase()]));
}

export function registerDataCommands(program: Command): void {
  const data = program.command('data').description('fetch benchmark data from its official source');
  data
    .command('pull')
    .description('download a benchmark into the user cache (or --dir)')
    .argument('<benchmark>', 'appbench | gta')
    .option('--dir <dir>', 'target folder (default: the user cache dir, <cache>/<benchmark>)')
    .option(
      '--url <url>',
      `gta: where to download ${GTA_ARCHIVE} from (default: the official v0.1.0 release)`,
    )
    .option('--force', 'download again even when the files are present')
    .option(
      '--sha256 <file=hash>',
      `pin a file hash, e.g. test_ss.json=<hex> (repeatable; gta: ${GTA_ARCHIVE}=<hex>)`,
      (v: string, acc: string[]) => [...acc, v],
      [],
    )
    .option('--json', 'machine-readable output')
    .action(async (benchmark: string, flags: PullFlags) => {
      parseChoice('<benchmark>', benchmark, ['appbench', 'gta']);
      if (benchmark === 'gta') return pullGtaCommand(flags);
      if (flags.url) throw new ApiaryError('USAGE', '--url is a flag of `apiary data pull gta`');
      const r = await pullAppBench({ dir: flags.dir, force: flags.force, sha256: pins(flags.sha256) });
      if (flags.json) {
        printJson(r);
        return;
      }
      for (const f of r.files)
        process.stdout.write(`${f.status.padEnd(10)} ${f.file}  ${f.records} records  sha256 ${f.sha256}\n`);
      for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
      process.stdout.write(`AppBench data in ${r.dir} (hashes in manifest.json)\n`);
    });
}

async function pullGtaCommand(flags: PullFlags): Promise<void> {
  const sha256 = pins(flags.sha256, [GTA_ARCHIVE])[GTA_ARCHIVE];
  const r = await pullGta({
    ...(flags.dir ? { dir: resolve(flags.dir) } : {}),
    ...(flags.force ? { force: true } : {}),
    ...(flags.url ? { url: flags.url } : {}),
    ...(sha256 ? { sha256 } : {}),
  });
  if (flags.json) {
    printJson(r);
    return;
  }
  const m = r.manifest;
  process.stdout.write(
    `${r.status.padEnd(10)} ${GTA_ARCHIVE}  ${m.records} queries, ${m.images} images  sha256 ${m.sha256}\n`,
  );
  for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
  process.stdout.write(`GTA data in ${r.dir} (use --data ${r.dir}; hash in manifest.json)\n`);
}
