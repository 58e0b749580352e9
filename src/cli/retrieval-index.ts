import cliProgress from 'cli-progress';
import {
  type FieldedCorpus,
  indexBuildSteps,
  loadDenseModel,
  loadTrainedModel,
  type OpenedIndex,
  openRetrievalIndex,
  type RetrievalIndex,
  type RetrieverDeps,
  type RetrieverKind,
} from '../retrieval/index.js';
import { ApiaryError } from '../shared/index.js';
import { parseExistingFile } from './options.js';

/** The kinds an index file serves (every BM25 kind, `ranked`, and the dense kinds when built with a dense encoder). */
export const INDEXED_KINDS: ReadonlySet<RetrieverKind> = new Set([
  'bm25-plain',
  'bm25',
  'bm25-tool',
  'bm25-fields',
  'ranked',
  'dense',
  'dense-hybrid',
]);

/** `42s`, `3m00s`: whole seconds rounded before splitting, so 179.6 s is 3m00s, not 2m60s. */
function fmtSeconds(seconds: number): string {
  const s = Math.round(seconds);
  return s < 90 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Build-step progress on stderr: a bar with ETA on a terminal, nothing when quiet (--json).
 * Redirected, a step line only once the build has taken 5 s and then at most every 5 s: a small
 * catalog's build is said by the one "index: built …" line, not a line per step.
 */
export function indexProgress(
  total: number,
  quiet: boolean,
  opts: { now?: () => number; stream?: Pick<NodeJS.WriteStream, 'write' | 'isTTY'> } = {},
): { step: (name: string) => void; stop: () => void } {
  const stream = opts.stream ?? process.stderr;
  if (quiet) return { step() {}, stop() {} };
  if (!stream.isTTY) {
    const now = opts.now ?? (() => performance.now());
    const t0 = now();
    let last = t0;
    let done = 0;
    return {
      step: (name) => {
        done++;
        const t = now();
        if (t - last < 5000) return;
        last = t;
        stream.write(`index: step ${done}/${total} ${name} (${fmtSeconds((t - t0) / 1000)} so far)\n`);
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream: stream as NodeJS.WriteStream,
      format: 'building index {bar} {value}/{total} {name} | ETA {eta}s',
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { name: '' });
  return { step: (name) => bar.increment(1, { name }), stop: () => bar.stop() };
}

export interface CliIndexOptions {
  /** --index FILE (default: the user cache folder). */
  path?: string;
  catalog: string;
  catalogHash: string;
  /** The corpus, only loaded when the index must be built. */
  corpus: () => FieldedCorpus;
  build: (corpus: FieldedCorpus, onStep: (name: string) => void) => RetrievalIndex;
  quiet: boolean;
  /** Say nothing at all, not even why a file is rebuilt (`apiary ask --json`). */
  silent?: boolean;
  /** Build even when the file is current (`retrieve index build`). */
  force?: boolean;
}

/** Loads the catalog's index file, or builds and writes it (progress bar) on first use or when stale. */
export function openCliIndex(opts: CliIndexOptions): OpenedIndex {
  // why a file is rebuilt is always said (stderr; --json keeps stdout clean); progress only when not quiet
  const log = (m: string) => {
    if (!opts.silent) process.stderr.write(`${m}\n`);
  };
  const opened = openRetrievalIndex({
    ...(opts.path ? { path: opts.path } : {}),
    catalog: opts.catalog,
    catalogHash: opts.catalogHash,
    log,
    ...(opts.force ? { force: true } : {}),
    build: () => {
      const corpus = opts.corpus();
      const progress = indexProgress(indexBuildSteps(corpus), opts.quiet);
      try {
        return opts.build(corpus, progress.step);
      } finally {
        progress.stop();
      }
    },
  });
  if (!opts.quiet) log(`index: ${opened.from} ${opened.path} in ${Math.round(opened.ms)} ms`);
  return opened;
}

/**
 * Progress of one training stage over all its batches (epochs × batches per epoch): a bar with
 * ETA on a terminal, a line every 5 s otherwise, nothing when quiet.
 */
export function trainProgress(
  label: string,
  quiet: boolean,
  opts: { now?: () => number; stream?: Pick<NodeJS.WriteStream, 'write' | 'isTTY'> } = {},
): {
  batch: (info: { epoch: number; batch: number; batches: number; loss: number }, epochs: number) => void;
  stop: () => void;
} {
  if (quiet) return { batch() {}, stop() {} };
  const stream = opts.stream ?? process.stderr;
  const now = opts.now ?? (() => performance.now());
  let t0 = 0;
  let first: number | undefined;
  let last = Number.NEGATIVE_INFINITY;
  let bar: cliProgress.SingleBar | undefined;
  return {
    batch: ({ epoch, batch, batches, loss }, epochs) => {
      const total = batches * epochs;
      const done = epoch * batches + batch + 1;
      if (first === undefined) {
        // the rate counts from the first batch seen (not feature extraction, not batches skipped by --resume)
        first = done;
        t0 = now();
      }
      if (stream.isTTY) {
        if (!bar) {
          bar = new cliProgress.SingleBar(
            {
              stream: stream as NodeJS.WriteStream,
              format: `${label} {bar} {value}/{total} batches | loss {loss} | ETA {eta_formatted}`,
              hideCursor: true,
            },
            cliProgress.Presets.shades_classic,
          );
          bar.start(total, done, { loss: loss.toFixed(4) });
        } else bar.update(done, { loss: loss.toFixed(4) });
        return;
      }
      const t = now();
      if (t - last < 5000 && done < total) return;
      last = t;
      const rate = (done - first) / Math.max(1e-3, (t - t0) / 1000);
      const eta = rate > 0 ? (total - done) / rate : Number.NaN;
      stream.write(
        `${label}: epoch ${epoch + 1}/${epochs} batch ${done}/${total} loss ${loss.toFixed(4)} ${rate.toFixed(1)} batches/s ETA ${Number.isFinite(eta) ? fmtSeconds(eta) : '?'}\n`,
      );
    },
    stop: () => bar?.stop(),
  };
}

/**
 * The model loaders `buildRetriever` asks for, both read from one flag (`apiary ask
 * --retriever-model`, `apiary mcp serve --retriever-model`): a trained projection for the trained
 * kinds and `ranked`, a dense encoder for the dense kinds. Loaded only when the kind needs it; a
 * missing flag is a usage error naming the kind and the command that makes the file.
 */
export function retrieverModelLoaders(
  kind: string,
  flag: string,
  file: string | undefined,
): Pick<RetrieverDeps, 'model' | 'dense'> {
  const path = (from: string) => {
    if (!file) throw new ApiaryError('USAGE', `--retriever ${kind} needs ${flag} FILE (from \`${from}\`)`);
    return parseExistingFile(flag, file);
  };
  return {
    model: () => loadTrainedModel(path('apiary retrieve train')),
    dense: () => ({ model: loadDenseModel(path('apiary retrieve train --retriever dense')) }),
  };
}
