import { printJson } from '../../cli/output.js';
import type { DataPullFlags } from '../../plugins/index.js';
import { pullAppBench } from './pull-appbench.js';

/** `apiary data pull appbench`: the four official test files, with their hashes in manifest.json. */
export async function pullAppBenchCommand(flags: DataPullFlags): Promise<void> {
  const r = await pullAppBench({ dir: flags.dir, force: flags.force, sha256: { ...flags.sha256 } });
  if (flags.json) {
    printJson(r);
    return;
  }
  for (const f of r.files)
    process.stdout.write(`${f.status.padEnd(10)} ${f.file}  ${f.records} records  sha256 ${f.sha256}\n`);
  for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
  process.stdout.write(`AppBench data in ${r.dir} (hashes in manifest.json)\n`);
}
