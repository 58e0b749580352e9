import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { z } from 'zod';
import { ApiaryError, type DownloadDeps, downloadFile, writeFileAtomic } from '../../shared/index.js';
import { loadGtaDataset } from './dataset.js';

/**
 * `apiary data pull gta`: the official GTA release archive (`gta_dataset.zip`: `dataset.json` and
 * `image/`), downloaded, checked against its SHA-256, unpacked with Debian's `unzip` and loaded
 * once as a check before it is moved into place.
 */

/** Where the archive comes from and what it must hash to (the one place to change both). */
const GTA_DATASET_RELEASE = {
  url: 'https://github.com/open-compass/GTA/releases/download/v0.1.0/gta_dataset.zip',
  /**
   * Not pinned yet: this build was written offline, without the archive at hand. Until it is, the
   * first download's hash is recorded in `manifest.json` and later pulls must match it (or a
   * hash given with `--sha256`).
   */
  sha256: null as string | null,
  /** Queries in the v0.1.0 release (docs/gta.md, "Official format: dataset.json and loading"). */
  records: 229,
} as const;

export const GTA_ARCHIVE = 'gta_dataset.zip';

/** `<user cache>/gta`, where `apiary data pull gta` unpacks the dataset. */
export function gtaCacheDir(): string {
  return join(envPaths('apiary').cache, 'gta');
}

export const GtaManifestSchema = z.object({
  url: z.string(),
  sha256: z.string(),
  bytes: z.number(),
  records: z.number(),
  images: z.number(),
  downloadedAt: z.string(),
});
export type GtaManifest = z.infer<typeof GtaManifestSchema>;

export interface PullGtaOptions {
  /** Target folder (default `gtaCacheDir()`); it receives `dataset.json`, `image/` and `manifest.json`. */
  dir?: string;
  force?: boolean;
  /** Expected SHA-256 of the archive; wins over the release constant and the manifest. */
  sha256?: string;
  url?: string;
  /** The `unzip` program (default: `unzip` on PATH). */
  unzipPath?: string;
  deps?: Partial<DownloadDeps> & { now?: () => Date };
}

export interface PullGtaResult {
  dir: string;
  status: 'downloaded' | 'present';
  manifest: GtaManifest;
  warnings: string[];
}

function readManifest(path: string): GtaManifest | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed = GtaManifestSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // a corrupt manifest means a fresh pull
  }
}

/** Unpacks with Debian's unzip (no zip library is installed; unzip refuses `../../tasks/` paths itself). */
function unzip(archive: string, into: string, unzipPath: string): void {
  const r = spawnSync(unzipPath, ['-q', '-o', archive, '-d', into], { encoding: 'utf8' });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT')
    throw new ApiaryError(
      'USAGE',
      `unpacking ${archive} needs the unzip program: install the Debian package unzip (apt-get install unzip)`,
    );
  if (r.error || r.status !== 0)
    throw new ApiaryError(
      'INPUT_INVALID',
      `cannot unpack ${archive}: ${(r.stderr || r.error?.message || `unzip exited with ${r.status}`).trim()}`,
    );
}

/** The folder of the unpacked tree that holds dataset.json (the archive may wrap it in one folder). */
function datasetRoot(dir: string): string | undefined {
  if (existsSync(join(dir, 'dataset.json'))) return dir;
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isDirectory() && existsSync(join(dir, entry.name, 'dataset.json')))
      return join(dir, entry.name);
  return undefined;
}

const countImages = (dir: string) =>
  existsSync(join(dir, 'image')) ? readdirSync(join(dir, 'image')).length : 0;

export async function pullGta(opts: PullGtaOptions = {}): Promise<PullGtaResult> {
  const dir = opts.dir ?? gtaCacheDir();
  const url = opts.url ?? GTA_DATASET_RELEASE.url;
  const now = opts.deps?.now ?? (() => new Date());
  const manifestPath = join(dir, 'manifest.json');
  const recorded = readManifest(manifestPath);
  const expected = opts.sha256?.toLowerCase() ?? GTA_DATASET_RELEASE.sha256 ?? recorded?.sha256;
  if (!opts.force && recorded && existsSync(join(dir, 'dataset.json'))) {
    if (expected && expected !== recorded.sha256)
      throw new ApiaryError(
        'INPUT_INVALID',
        `${dir} holds the archive with sha256 ${recorded.sha256}, not ${expected}; run with --force to download it again`,
      );
    return { dir, status: 'present', manifest: recorded, warnings: [] };
  }
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, '.pull-'));
  try {
    const archive = join(work, GTA_ARCHIVE);
    const download = await downloadFile(url, archive, {
      ...(expected ? { sha256: expected } : {}),
      deps: opts.deps ?? {},
      timeoutMs: 600_000,
    });
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    unzip(archive, unpacked, opts.unzipPath ?? 'unzip');
    const root = datasetRoot(unpacked);
    if (!root) throw new ApiaryError('INPUT_INVALID', `${url}: the archive holds no dataset.json`);
    const records = loadGtaDataset(root).records.length; // every image a record names must be there
    for (const name of readdirSync(root)) {
      rmSync(join(dir, name), { recursive: true, force: true });
      cpSync(join(root, name), join(dir, name), { recursive: true });
    }
    const manifest: GtaManifest = {
      url,
      sha256: download.sha256,
      bytes: download.bytes,
      records,
      images: countImages(dir),
      downloadedAt: now().toISOString(),
    };
    writeFileAtomic(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    const warnings =
      records === GTA_DATASET_RELEASE.records
        ? []
        : [`dataset.json: ${records} queries, expected ${GTA_DATASET_RELEASE.records} (another release?)`];
    if (!expected)
      warnings.push(
        `no pinned sha256: recorded ${download.sha256} in manifest.json (later pulls must match it)`,
      );
    return { dir, status: 'downloaded', manifest, warnings };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
