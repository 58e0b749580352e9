import { describe, expect, it } from 'vitest';
import { indexProgress, trainProgress } from './retrieval-index.js';

describe('trainProgress (not a terminal)', () => {
  it('prints a line at most every 5 s with the rate since the first batch and the ETA, and the last batch', () => {
    const lines: string[] = [];
    let t = 0;
    const p = trainProgress('projection', false, {
      now: () => t,
      stream: { isTTY: false, write: (s: string) => lines.push(s) > 0 },
    });
    const batch = (epoch: number, b: number) => p.batch({ epoch, batch: b, batches: 10, loss: 0.5 }, 2);
    batch(0, 0); // t = 0: first line, no rate yet
    t = 2000;
    batch(0, 1); // within 5 s: silent
    t = 5000;
    batch(0, 4); // 4 batches in 5 s → 0.8/s, 15 left → ETA 19 s
    t = 6000;
    batch(1, 9); // the last batch always prints
    expect(lines).toEqual([
      'projection: epoch 1/2 batch 1/20 loss 0.5000 0.0 batches/s ETA ?\n',
      'projection: epoch 1/2 batch 5/20 loss 0.5000 0.8 batches/s ETA 19s\n',
      'projection: epoch 2/2 batch 20/20 loss 0.5000 3.2 batches/s ETA 0s\n',
    ]);
  });

  it('says nothing when quiet', () => {
    const lines: string[] = [];
    const p = trainProgress('x', true, { stream: { isTTY: false, write: (s: string) => lines.push(s) > 0 } });
    p.batch({ epoch: 0, batch: 0, batches: 1, loss: 1 }, 1);
    expect(lines).toEqual([]);
  });
});

describe('trainProgress ETA', () => {
  it('rounds to whole seconds before splitting minutes: 179.6 s is 3m00s, not 2m60s', () => {
    const lines: string[] = [];
    let t = 0;
    const p = trainProgress('dense', false, {
      now: () => t,
      stream: { isTTY: false, write: (s: string) => lines.push(s) > 0 },
    });
    p.batch({ epoch: 0, batch: 0, batches: 949, loss: 0.5 }, 1);
    t = 10_000;
    p.batch({ epoch: 0, batch: 50, batches: 949, loss: 0.5 }, 1); // 50 batches in 10 s, 898 left → 179.6 s
    expect(lines[1]).toBe('dense: epoch 1/1 batch 51/949 loss 0.5000 5.0 batches/s ETA 3m00s\n');
  });
});

describe('indexProgress (not a terminal)', () => {
  const collect = () => {
    const lines: string[] = [];
    return { lines, stream: { isTTY: false, write: (s: string) => lines.push(s) > 0 } };
  };

  it('a quick build prints no step line (the "index: built …" line says it), not one per step', () => {
    const { lines, stream } = collect();
    let t = 0;
    const p = indexProgress(9, false, { now: () => t, stream });
    for (let k = 1; k <= 9; k++) {
      t = k * 40;
      p.step(`step-${k}`);
    }
    p.stop();
    expect(lines).toEqual([]);
  });

  it('a slow build prints a step line at most every 5 s', () => {
    const { lines, stream } = collect();
    let t = 0;
    const p = indexProgress(9, false, { now: () => t, stream });
    for (const [k, at] of [
      [1, 1000],
      [2, 5200],
      [3, 6000],
      [4, 10_300],
      [5, 10_400],
    ] as const) {
      t = at;
      p.step(`step-${k}`);
    }
    expect(lines).toEqual(['index: step 2/9 step-2 (5s so far)\n', 'index: step 4/9 step-4 (10s so far)\n']);
  });
});
