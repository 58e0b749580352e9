import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { bundledDataDir } from '../../catalog/index.js';
import { parseChoice, parseInteger } from '../../cli/options.js';
import { terminalText } from '../../cli/output.js';
import { createProgressReporter, progressModeFor } from '../../harness/index.js';
import { resolveModelSetup } from '../../models/index.js';
import { ApiaryError } from '../../shared/index.js';
import { loadShortcutsApis } from './api-files.js';
import { shortcutLength } from './length.js';
import { ACCEPT_RULES, generateShortcutQuery, type QueryOutcome } from './query-generation.js';
import { readShortcutFile } from './shortcut-file.js';
import { workflowToXmlPlist } from './xml-plist-write.js';

/**
 * `apiary shortcuts queries FOLDER`: writes `NAME.query.txt` for each shortcut of FOLDER (the sidecar
 * `eval shortcuts --shortcuts` reads, src/benchmarks/shortcutsbench/shortcut-folder.ts) and a manifest
 * of every attempt, check and rejection.
 */

export interface QueriesFlags {
  data?: string;
  out?: string;
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  seed: string;
  retries: string;
  accept: string;
  overwrite?: boolean;
}

/** The manifest's file name; it is JSON, so `eval --shortcuts` (which reads .shortcut/.plist) skips it. */
const QUERIES_MANIFEST = 'queries.manifest.json';
const SOURCE_EXTENSIONS = ['.shortcut', '.plist', '.json'];

type EntryStatus = QueryOutcome['status'] | 'kept' | 'unreadable' | 'skipped';

interface ManifestEntry {
  file: string;
  status: EntryStatus;
  /** The shortcut file `eval --shortcuts` reads in the output folder (a JSON source is written as a plist). */
  shortcut?: string;
  query?: string;
  reason?: string;
  outcome?: QueryOutcome;
}

/** Runs the command: sidecars and the manifest written, the counts printed. */
export async function runShortcutQueries(folderArg: string, flags: QueriesFlags): Promise<void> {
  const folder = resolve(folderArg);
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new ApiaryError('NOT_FOUND', `shortcut folder ${folder} does not exist or is not a folder`);
  const seed = parseInteger('--seed', flags.seed, { min: 0 });
  const retries = parseInteger('--retries', flags.retries, { min: 0 });
  const accept = parseChoice('--accept', flags.accept, ACCEPT_RULES);
  const files = readdirSync(folder)
    .filter((f) => f !== QUERIES_MANIFEST && SOURCE_EXTENSIONS.includes(extname(f).toLowerCase()))
    // a plist or .shortcut claims its name before a JSON source of the same name
    .sort(
      (a, b) => Number(a.endsWith('.json')) - Number(b.endsWith('.json')) || (a < b ? -1 : a > b ? 1 : 0),
    );
  if (files.length === 0)
    throw new ApiaryError(
      'INPUT_INVALID',
      `${folder} holds no .shortcut, .plist or ShortcutsBench .json files`,
    );
  const apis = loadShortcutsApis(flags.data ?? join(bundledDataDir(), 'shortcutsbench'));
  const setup = resolveModelSetup({ model: flags.model, baseURL: flags.baseUrl, apiKeyEnv: flags.apiKeyEnv });
  const out = resolve(flags.out ?? folder);
  mkdirSync(out, { recursive: true });

  const entries: ManifestEntry[] = [];
  const writeManifest = () =>
    writeFileSync(
      join(out, QUERIES_MANIFEST),
      `${JSON.stringify(
        {
          folder,
          model: setup ? { id: setup.modelId, baseURL: setup.baseURL } : null,
          queries: setup ? 'model' : 'templated (no model: every value stated literally)',
          seed,
          retries,
          accept,
          counts: countsOf(entries),
          shortcuts: entries,
        },
        null,
        2,
      )}\n`,
    );
  const progress = createProgressReporter({ label: 'queries', mode: progressModeFor(process.stderr, false) });
  const started = performance.now();
  const stems = new Map<string, string>(); // stem → the file that claimed it
  try {
    for (const f of files) {
      entries.push(await oneShortcut(f));
      writeManifest();
      const elapsedMs = performance.now() - started;
      const done = entries.length;
      const rate = done / Math.max(elapsedMs / 1000, 1e-3);
      progress.update({
        done,
        total: files.length,
        skipped: 0,
        errors: entries.filter((e) => e.status === 'rejected' || e.status === 'unreadable').length,
        elapsedMs,
        rate,
        etaMs: ((files.length - done) / rate) * 1000,
      });
    }
  } finally {
    progress.stop();
    writeManifest();
  }
  const c = countsOf(entries);
  process.stdout.write(
    terminalText(
      `${files.length} shortcuts: ${c.accepted} accepted, ${c.rejected} rejected, ${c.templated} templated (no model), ${c.kept} kept (a query was there), ${c.unreadable} unreadable${c.skipped ? `, ${c.skipped} skipped (a file of the same name is read)` : ''}; queries in ${out}, manifest ${join(out, QUERIES_MANIFEST)}\n`,
    ),
  );

  async function oneShortcut(f: string): Promise<ManifestEntry> {
    const source = join(folder, f);
    const isJson = extname(f).toLowerCase() === '.json';
    const stem = basename(f, extname(f));
    const target = isJson ? `${stem}.plist` : f;
    const claimed = stems.get(stem);
    // e.g. the plist an earlier run wrote from this JSON: one query file per name
    if (claimed)
      return { file: f, status: 'skipped', reason: `${claimed} has the same name and is the one read` };
    stems.set(stem, f);
    const sidecar = join(out, `${stem}.query.txt`);
    if (existsSync(sidecar) && !flags.overwrite) {
      if (!existsSync(join(out, target))) placeShortcut();
      return {
        file: f,
        status: 'kept',
        shortcut: target,
        reason: `${sidecar} exists (--overwrite writes it again)`,
      };
    }
    let imported: ReturnType<typeof readShortcutFile>;
    try {
      imported = readShortcutFile(source);
      // eval levels every shortcut by LEN (§6.1), which refuses what upstream crashes on
      shortcutLength(imported.actions);
    } catch (error) {
      if (!(error instanceof ApiaryError)) throw error;
      return { file: f, status: 'unreadable', reason: error.message };
    }
    let outcome: QueryOutcome;
    try {
      outcome = await generateShortcutQuery(
        { key: f, name: imported.name, actions: imported.actions },
        apis,
        { ...(setup ? { model: setup.model } : {}), seed, retries, accept },
      );
    } catch (error) {
      throw new ApiaryError('MODEL_CALL_FAILED', `${source}: ${(error as Error).message}`, { cause: error });
    }
    if (outcome.status === 'rejected')
      return {
        file: f,
        status: 'rejected',
        reason: `every attempt (${outcome.attempts.length}) left out a value: ${outcome.attempts.at(-1)!.missed.join(', ')}`,
        outcome,
      };
    placeShortcut(imported.workflow);
    writeFileSync(sidecar, `${outcome.query}\n`);
    return { file: f, status: outcome.status, shortcut: target, query: outcome.query!, outcome };

    /** Puts the shortcut where `eval --shortcuts OUT` reads it: copied, or a JSON source as a plist. */
    function placeShortcut(workflow?: Parameters<typeof workflowToXmlPlist>[0]): void {
      const dest = join(out, target);
      if (isJson) {
        if (existsSync(dest) && dest !== source && !flags.overwrite) return;
        writeFileSync(dest, workflowToXmlPlist(workflow ?? readShortcutFile(source).workflow));
      } else if (dest !== source) copyFileSync(source, dest);
    }
  }
}

function countsOf(entries: readonly ManifestEntry[]): Record<EntryStatus, number> {
  const counts: Record<EntryStatus, number> = {
    accepted: 0,
    rejected: 0,
    templated: 0,
    kept: 0,
    unreadable: 0,
    skipped: 0,
  };
  for (const e of entries) counts[e.status]++;
  return counts;
}
