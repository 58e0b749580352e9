import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Worker } from 'tesseract.js';
import type { ContentPart } from '../../../apps/index.js';
import type { ExecutableTool } from '../../../tools/index.js';
import { imagePathArg, toolError } from './image-args.js';
import { readCheckedImage } from './image-limits.js';

/** One recognised line: its pixel box and text. */
export interface OcrLine {
  bbox: { x0: number; y0: number; x1: number; y1: number };
  text: string;
}

/**
 * GTA's gold OCR steps, as AgentLego's OCR tool renders them: one line per text region,
 * `(x1, y1, x2, y2) text`, joined by newlines (e.g. `(2, 1, 14, 4) Tea 4`).
 */
export function formatOcrLines(lines: readonly OcrLine[]): string {
  return lines
    .map((l) => ({ ...l, text: l.text.replace(/\s+/g, ' ').trim() }))
    .filter((l) => l.text !== '')
    .map(({ bbox: b, text }) => `(${b.x0}, ${b.y0}, ${b.x1}, ${b.y1}) ${text}`)
    .join('\n');
}

/** The folder of the English traineddata shipped by `@tesseract.js-data/eng` (read locally, never fetched). */
function bundledEnglishLangPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

/**
 * tesseract.js's Node worker, started with `console.error` silenced: leptonica prints its own decode
 * errors ("Error in pixReadStream: Unknown format…", "libpng error: Read Error") to stderr before
 * the job rejects, and the rejection is what we report, as a coded TOOL_FAILED. Node starts a
 * worker from a `data:` URL object (tesseract.js hands `workerPath` to `new Worker` unchanged).
 */
function quietWorkerUrl(): URL {
  const require = createRequire(import.meta.url);
  const script = join(
    dirname(require.resolve('tesseract.js/package.json')),
    'src/worker-script/node/index.js',
  );
  const code = [
    "import { createRequire } from 'node:module';",
    // the wasm core binds console.error when loaded, so it is replaced before
    'console.error = () => {};',
    `createRequire(${JSON.stringify(script)})(${JSON.stringify(script)});`,
  ].join('\n');
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

export interface OcrToolOptions {
  /** Folder holding `<lang>.traineddata.gz` (default: the bundled English data). */
  langPath?: string;
  lang?: string;
}

export interface OcrTool extends ExecutableTool {
  /** Ends the tesseract worker (started by the first call); the next call starts a new one. */
  dispose(): Promise<void>;
}

/**
 * GTA's OCR on tesseract.js. The worker starts on the first call (≈0.4 s) and is reused by the
 * following ones; language data is read from a local folder with caching off, so nothing is
 * downloaded and nothing is written next to the process.
 */
export function ocrTool(opts: OcrToolOptions = {}): OcrTool {
  let worker: Promise<Worker> | undefined;
  const lang = opts.lang ?? 'eng';
  const langPath = opts.langPath ?? bundledEnglishLangPath();
  const dataFile = join(langPath, `${lang}.traineddata.gz`);
  const start = async () => {
    const { createWorker } = await import('tesseract.js');
    return createWorker(lang, 1, {
      workerPath: quietWorkerUrl() as unknown as string,
      langPath,
      cacheMethod: 'none',
      gzip: true,
      // Without a handler tesseract.js throws worker errors as uncaught exceptions; the job's own
      // promise rejects anyway, and that is where the error is reported.
      errorHandler: () => {},
    });
  };
  const unavailable = () =>
    existsSync(dataFile)
      ? undefined
      : `no ${lang} language data at ${dataFile} (install @tesseract.js-data/${lang} or set the OCR langPath)`;
  return {
    name: 'OCR',
    unavailable,
    async run(args, ctx): Promise<ContentPart[]> {
      const path = imagePathArg('OCR', args, ctx.readable);
      // tesseract.js would wait forever for a language file it cannot load: check first.
      const missing = unavailable();
      if (missing) throw toolError('OCR', missing);
      // The header is checked before tesseract decodes anything (a small PNG can declare gigapixels).
      const { bytes } = await readCheckedImage('OCR', path);
      if (!worker) {
        worker = start();
        // A failed start must not poison later calls.
        worker.catch(() => {
          worker = undefined;
        });
      }
      const current = worker;
      // A stopped call ends the tesseract worker still busy with it; the next call starts a new one.
      // (after a turn of the event loop: tesseract.js posts a job a few microtasks after
      // `recognize` is called, and a worker ended in between throws an unhandled rejection)
      const stop = () => {
        if (worker === current) worker = undefined;
        void current
          .then(async (w) => {
            await new Promise((resolve) => setImmediate(resolve));
            await w.terminate();
          })
          .catch(() => {});
      };
      ctx.signal?.addEventListener('abort', stop, { once: true });
      try {
        const w = await current;
        if (ctx.signal?.aborted) throw new Error('stopped before it started');
        const { data } = await w.recognize(bytes, {}, { blocks: true, text: false });
        const lines = (data.blocks ?? []).flatMap((b) => b.paragraphs.flatMap((p) => p.lines));
        return [{ type: 'text', text: formatOcrLines(lines) }];
      } catch (e) {
        throw toolError('OCR', `cannot recognise ${path}: ${(e as Error).message ?? String(e)}`, e);
      } finally {
        ctx.signal?.removeEventListener('abort', stop);
      }
    },
    async dispose() {
      const w = worker;
      worker = undefined;
      if (w) await (await w.catch(() => undefined))?.terminate();
    },
  };
}
