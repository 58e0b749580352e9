import type { Command } from 'commander';
import type { PluginDownload } from '../../plugins/index.js';
import { ApiaryError } from '../../shared/index.js';
import { parseChoice, parseKeyValues, parseOutputPath } from '../options.js';
import { cliPlugins } from '../program.js';

interface PullFlags {
  dir?: string;
  url?: string;
  force?: boolean;
  sha256: string[];
  json?: boolean;
}

/** `--sha256 FILE=HASH` (repeatable) → { FILE: lower-case hash }. */
function pins(values: readonly string[], files: readonly string[]): Record<string, string> {
  const pinned = parseKeyValues('--sha256', values, {
    shape: 'FILE=HASH',
    keys: files,
    value: { pattern: /^[0-9a-fA-F]{64}$/, meaning: 'a 64-hex-digit sha256' },
  });
  return Object.fromEntries(Object.entries(pinned).map(([file, hash]) => [file, hash.toLowerCase()]));
}

/** `pin a file hash, e.g. FIRST=<hex> (repeatable; other: FILE=<hex>)`: one example per download. */
function sha256Help(downloads: readonly PluginDownload[]): string {
  const [first, ...others] = downloads;
  const example = (d: PluginDownload) => `${d.files[0]}=<hex>`;
  return `pin a file hash${first ? `, e.g. ${example(first)}` : ''} (repeatable${others.map((d) => `; ${d.name}: ${example(d)}`).join('')})`;
}

export function registerDataCommands(program: Command): void {
  const downloads = cliPlugins().flatMap((p) => p.downloads ?? []);
  const withUrl = downloads.filter((d) => d.url);
  const data = program
    .command('data')
    .description('fetch benchmark data from its official source, or build it from your own (data build)');
  data
    .command('pull')
    .description('download a benchmark into the user cache (or --dir)')
    .argument('<benchmark>', downloads.map((d) => d.name).join(' | '))
    .option('--dir <dir>', 'target folder (default: the user cache dir, <cache>/<benchmark>)')
    .option('--url <url>', withUrl.map((d) => `${d.name}: ${d.url}`).join('; '))
    .option('--force', 'download again even when the files are present')
    .option('--sha256 <file=hash>', sha256Help(downloads), (v: string, acc: string[]) => [...acc, v], [])
    .option('--json', 'machine-readable output')
    .action(async (benchmark: string, flags: PullFlags) => {
      parseChoice(
        '<benchmark>',
        benchmark,
        downloads.map((d) => d.name),
      );
      const download = downloads.find((d) => d.name === benchmark)!;
      if (flags.url && !download.url)
        throw new ApiaryError(
          'USAGE',
          `--url is a flag of ${withUrl.map((d) => `\`apiary data pull ${d.name}\``).join(', ')}`,
        );
      parseOutputPath('--dir', flags.dir, 'directory'); // before anything is downloaded
      const sha256 = pins(flags.sha256, download.files);
      const pull = await download.load();
      await pull({
        ...(flags.dir !== undefined ? { dir: flags.dir } : {}),
        ...(flags.url !== undefined ? { url: flags.url } : {}),
        ...(flags.force !== undefined ? { force: flags.force } : {}),
        sha256,
        ...(flags.json !== undefined ? { json: flags.json } : {}),
      });
    });
  registerDataBuilds(data);
}

/** `apiary data build <name>`: one subcommand per build a plugin declares. */
function registerDataBuilds(data: Command): void {
  const builds = cliPlugins().flatMap((p) => p.dataBuilds ?? []);
  if (!builds.length) return;
  const build = data.command('build').description('build a benchmark dataset from your own data');
  for (const b of builds) {
    const sub = build.command(b.name).description(b.description);
    for (const o of b.requiredOptions ?? []) sub.requiredOption(o.flags, o.description);
    for (const o of b.options) sub.option(o.flags, o.description);
    sub.action(async (flags: Record<string, unknown>) => (await b.load())(flags));
  }
}
