import type { Command } from 'commander';
import { ApiaryError } from '../../shared/index.js';
import { APPBENCH_CATEGORIES, appBenchFileName, pullAppBench } from '../../tasks/appbench/index.js';
import { printJson } from '../output.js';

interface PullFlags {
  dir?: string;
  force?: boolean;
  sha256: string[];
  json?: boolean;
}

const FILES: readonly string[] = APPBENCH_CATEGORIES.map(appBenchFileName);

/** `--sha256 FILE=HASH` (repeatable) → { FILE: hash }. */
function pins(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const m = /^([^=]+)=([0-9a-fA-F]{64})$/.exec(v.trim());
    if (!m)
      throw new ApiaryError('USAGE', `--sha256 expects FILE=HASH with a 64-hex-digit sha256 (got "${v}")`);
    if (!FILES.includes(m[1]!))
      throw new ApiaryError('USAGE', `--sha256: unknown file "${m[1]}" (${FILES.join(', ')})`);
    out[m[1]!] = m[2]!.toLowerCase();
  }
  return out;
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
      if (benchmark !== 'appbench')
        throw new ApiaryError('USAGE', `unknown benchmark "${benchmark}" (available: appbench)`);
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
