import type { Command } from 'commander';
import { APPBENCH_CATEGORIES, appBenchFileName, pullAppBench } from '../../tasks/appbench/index.js';
import { parseChoice, parseKeyValues } from '../options.js';
import { printJson } from '../output.js';

interface PullFlags {
  dir?: string;
  force?: boolean;
  sha256: string[];
  json?: boolean;
}

const FILES: readonly string[] = APPBENCH_CATEGORIES.map(appBenchFileName);

/** `--sha256 FILE=HASH` (repeatable) → { FILE: lower-case hash }. */
function pins(values: readonly string[]): Record<string, string> {
  const pinned = parseKeyValues('--sha256', values, {
    shape: 'FILE=HASH',
    keys: FILES,
    value: { pattern: /^[0-9a-fA-F]{64}$/, meaning: 'a 64-hex-digit sha256' },
  });
  return Object.fromEntries(Object.entries(pinned).map(([file, hash]) => [file, hash.toLowerCase()]));
}

export function registerDataCommands(program: Command): void {
  const data = program.command('data').description('fetch benchmark data from its official source');
  data
    .command('pull')
    .description('download a benchmark into the user cache (or --dir)')
    .argument('<benchmark>', 'appbench')
    .option('--dir <dir>', 'target folder (default: the user cache dir, <cache>/appbench)')
    .option('--force', 'download again even when the files are present')
    .option(
      '--sha256 <file=hash>',
      'pin a file hash, e.g. test_ss.json=<hex> (repeatable)',
      (v: string, acc: string[]) => [...acc, v],
      [],
    )
    .option('--json', 'machine-readable output')
    .action(async (benchmark: string, flags: PullFlags) => {
      parseChoice('<benchmark>', benchmark, ['appbench']);
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
