import cliProgress from 'cli-progress';
import type { EvalProgress } from './run-eval.js';

export type ProgressMode = 'bar' | 'lines' | 'none';

export interface ProgressReporter {
  update(p: EvalProgress): void;
  stop(): void;
}

/** `bar` on a terminal, `lines` when stderr is redirected, `none` for --json. */
export function progressModeFor(stream: { isTTY?: boolean }, json: boolean): ProgressMode {
  if (json) return 'none';
  return stream.isTTY ? 'bar' : 'lines';
}

export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '?';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** One plain progress line, as printed when stderr is not a terminal. */
export function formatProgressLine(label: string, p: EvalProgress): string {
  const pct = p.total ? Math.floor((p.done * 100) / p.total) : 100;
  return `[${label}] ${p.done}/${p.total} (${pct}%) ${p.rate.toFixed(1)}/s ETA ${formatDuration(p.etaMs)} errors ${p.errors}${
    p.skipped ? ` (resumed: ${p.skipped} already done)` : ''
  }\n`;
}

export interface ProgressReporterOptions {
  label: string;
  mode: ProgressMode;
  stream?: NodeJS.WriteStream;
  /** Plain mode: at most one line per interval (ms), plus the final one (default 5000). */
  intervalMs?: number;
  now?: () => number;
}

/** Shows run progress on stderr: a bar with rate and ETA, or periodic plain lines. */
export function createProgressReporter(opts: ProgressReporterOptions): ProgressReporter {
  const stream = opts.stream ?? process.stderr;
  if (opts.mode === 'none') return { update() {}, stop() {} };
  if (opts.mode === 'bar') {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: `${opts.label} {bar} {value}/{total} | {rate}/s | ETA {eta_text} | errors {errors}`,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
        noTTYOutput: true, // only chosen for a terminal; lets a redirected stream still get the final state
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(p) {
        const payload = { rate: p.rate.toFixed(1), eta_text: formatDuration(p.etaMs), errors: p.errors };
        if (!started) {
          bar.start(p.total, p.done, payload);
          started = true;
        } else bar.update(p.done, payload);
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  const now = opts.now ?? (() => performance.now());
  const interval = opts.intervalMs ?? 5000;
  let lastAt = Number.NEGATIVE_INFINITY;
  let last: EvalProgress | null = null;
  let printedLast = false;
  return {
    update(p) {
      last = p;
      printedLast = false;
      const t = now();
      if (p.done === p.total || t - lastAt >= interval) {
        stream.write(formatProgressLine(opts.label, p));
        lastAt = t;
        printedLast = true;
      }
    },
    stop() {
      if (last && !printedLast) stream.write(formatProgressLine(opts.label, last));
    },
  };
}
