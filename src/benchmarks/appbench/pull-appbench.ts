import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { z } from 'zod';
import {
  ApiaryError,
  type DownloadDeps,
  downloadFile,
  sha256Hex,
  writeFileAtomic,
} from '../../shared/index.js';
import { appBenchFileName } from './categories.js';
import { APPBENCH_CATEGORIES, type AppBenchCategory, parseAppBenchFile } from './record.js';

/** Official test files (ruleGreen/AppBench, `data/test/`), fetched at run time: AppBench has no licence to vendor. */
const APPBENCH_BASE_URL = 'https://raw.githubusercontent.com/ruleGreen/AppBench/main/data/test';
/** Records per official file (docs/appbench.md, "Official files"). */
const APPBENCH_EXPECTED_COUNTS: Readonly<Record<AppBenchCategory, number>> = {
  ss: 200,
  sm: 200,
  ms: 201,
  mm: 200,
};

/** `<user cache>/appbench` (env-paths('apiary').cache), where `apiary data pull appbench` stores the files. */
function appBenchCacheDir(): string {
  return join(envPaths('apiary').cache, 'appbench');
}

const hasAppBenchFiles = (dir: string) =>
  ['test', 'dev'].some((p) => APPBENCH_CATEGORIES.some((c) => existsSync(join(dir, `${p}_${c}.json`))));

/** The AppBench data folder to use: the explicit one, else the cache when it holds files, else undefined. */
export function findAppBenchData(dir?: string, cacheDir: string = appBenchCacheDir()): string | undefined {
  if (dir) return dir;
  return hasAppBenchFiles(cacheDir) ? cacheDir : undefined;
}

export const AppBenchManifestSchema = z.object({
  source: z.string(),
  files: z.record(
    z.string(),
    z.object({
      url: z.string(),
      sha256: z.string(),
      bytes: z.number(),
      records: z.number(),
      downloadedAt: z.string(),
    }),
  ),
});
type AppBenchManifest = z.infer<typeof AppBenchManifestSchema>;

export interface PullAppBenchOptions {
  /** Target folder (default: `appBenchCacheDir()`). */
  dir?: string;
  /** Download even when a file is present and matches the manifest. */
  force?: boolean;
  /** Pinned hashes by file name (`test_ss.json` → hex); they win over the manifest. */
  sha256?: Record<string, string>;
  baseUrl?: string;
  categories?: readonly AppBenchCategory[];
  deps?: Partial<DownloadDeps> & { now?: () => Date };
}

export interface PulledFile {
  file: string;
  url: string;
  path: string;
  sha256: string;
  records: number;
  status: 'downloaded' | 'present';
}

export interface PullAppBenchResult {
  dir: string;
  files: PulledFile[];
  warnings: string[];
}

function readManifest(path: string): AppBenchManifest | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed = AppBenchManifestSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // a corrupt manifest is rebuilt
  }
}

/**
 * Downloads the four official AppBench test files (trust on first use): the first download
 * records each file's sha256 in `manifest.json`; later downloads must match it (or a pinned
 * `--sha256`). Each file is validated as AppBench records before it is moved into place.
 */
export async function pullAppBench(opts: PullAppBenchOptions = {}): Promise<PullAppBenchResult> {
  const dir = opts.dir ?? appBenchCacheDir();
  const baseUrl = opts.baseUrl ?? APPBENCH_BASE_URL;
  const now = opts.deps?.now ?? (() => new Date());
  const manifestPath = join(dir, 'manifest.json');
  const manifest: AppBenchManifest = readManifest(manifestPath) ?? { source: baseUrl, files: {} };
  const files: PulledFile[] = [];
  const warnings: string[] = [];
  for (const category of opts.categories ?? APPBENCH_CATEGORIES) {
    const file = appBenchFileName(category);
    const url = `${baseUrl}/${file}`;
    const path = join(dir, file);
    const pinned = opts.sha256?.[file]?.toLowerCase();
    const recorded = manifest.files[file];
    const expected = pinned ?? recorded?.sha256;
    if (!opts.force && existsSync(path)) {
      const content = readFileSync(path);
      const sha256 = sha256Hex(content);
      if (expected && sha256 !== expected)
        throw new ApiaryError(
          'INPUT_INVALID',
          `${path}: sha256 ${sha256} does not match ${pinned ? 'the pinned hash' : 'manifest.json'} (${expected}); run with --force to download it again`,
        );
      const records = parseAppBenchFile(content.toString('utf8'), path).length;
      files.push({ file, url, path, sha256, records, status: 'present' });
      if (records !== APPBENCH_EXPECTED_COUNTS[category])
        warnings.push(`${file}: ${records} records, expected ${APPBENCH_EXPECTED_COUNTS[category]}`);
      if (!recorded)
        manifest.files[file] = {
          url,
          sha256,
          bytes: content.length,
          records,
          downloadedAt: now().toISOString(),
        };
      continue;
    }
    let records = 0;
    const result = await downloadFile(url, path, {
      ...(expected ? { sha256: expected } : {}),
      deps: opts.deps ?? {},
      validate: (content) => {
        records = parseAppBenchFile(content.toString('utf8'), url).length;
      },
    });
    if (records !== APPBENCH_EXPECTED_COUNTS[category])
      warnings.push(
        `${file}: ${records} records, expected ${APPBENCH_EXPECTED_COUNTS[category]} (upstream changed?)`,
      );
    manifest.files[file] = {
      url,
      sha256: result.sha256,
      bytes: result.bytes,
      records,
      downloadedAt: now().toISOString(),
    };
    files.push({ file, url, path, sha256: result.sha256, records, status: 'downloaded' });
    writeFileAtomic(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  }
  writeFileAtomic(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { dir, files, warnings };
}
