import { resolve } from 'node:path';
import { printJson } from '../../cli/output.js';
import type { DataPullFlags } from '../../plugins/index.js';
import { GTA_ARCHIVE, pullGta } from './pull-gta.js';

/** `apiary data pull gta`: the release archive (queries and images), its hash in manifest.json. */
export async function pullGtaCommand(flags: DataPullFlags): Promise<void> {
  const sha256 = flags.sha256[GTA_ARCHIVE];
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
