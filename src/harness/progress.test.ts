import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgressReporter, formatDuration, formatProgressLine, progressModeFor } from './progress.js';
import type { EvalProgress } from './run-eval.js';

const p = (done: number, extra: Partial<EvalProgress> = {}): EvalProgress => ({
  done,
  total: 40,
  skipped: 0,
  errors: 0,
  elapsedMs: 1000,
  rate: 2.5,
  etaMs: 6000,
  ...extra,
});

function sink() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  }) as unknown as NodeJS.WriteStream;
  return { stream, chunks };
}

describe('progress', () => {
  it('picks a bar on a terminal, plain lines otherwise, nothing with --json', () => {
    expect(progressModeFor({ isTTY: true }, false)).toBe('bar');
    expect(progressModeFor({ isTTY: false }, false)).toBe('lines');
    expect(progressModeFor({ isTTY: true }, true)).toBe('none');
  });

  it('formats durations and plain lines', () => {
    expect(formatDuration(null)).toBe('?');
    expect(formatDuration(59_400)).toBe('59s');
    expect(formatDuration(61_000)).toBe('1m01s');
    expect(formatDuration(3_723_000)).toBe('1h02m');
    expect(formatProgressLine('appbench', p(10, { skipped: 4, errors: 1 }))).toBe(
      '[appbench] 10/40 (25%) 2.5/s ETA 6s errors 1 (resumed: 4 already done)\n',
    );
  });

  it('plain mode prints at most one line per interval, plus the last state on stop', () => {
    const { stream, chunks } = sink();
    let t = 0;
    const r = createProgressReporter({ label: 'x', mode: 'lines', stream, intervalMs: 5000, now: () => t });
    r.update(p(0));
    t = 1000;
    r.update(p(1));
    t = 6000;
    r.update(p(2));
    t = 7000;
    r.update(p(3));
    r.stop();
    expect(chunks.map((c) => c.split(' ')[1])).toEqual(['0/40', '2/40', '3/40']);
  });

  it('plain mode always prints the final sample', () => {
    const { stream, chunks } = sink();
    const r = createProgressReporter({ label: 'x', mode: 'lines', stream, intervalMs: 1e9, now: () => 0 });
    r.update(p(0));
    r.update(p(40));
    r.stop();
    expect(chunks).toHaveLength(2);
    expect(chunks[1]).toContain('40/40 (100%)');
  });

  it('bar mode draws on the given stream', () => {
    const { stream, chunks } = sink();
    const r = createProgressReporter({ label: 'appbench', mode: 'bar', stream });
    r.update(p(0));
    r.update(p(40, { rate: 12.34, etaMs: 0 }));
    r.stop();
    expect(chunks.join('')).toMatch(/appbench .* 40\/40 \| 12\.3\/s \| ETA 0s \| errors 0/);
  });
});
