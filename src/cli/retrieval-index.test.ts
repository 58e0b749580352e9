import { describe, expect, it } from 'vitest';
import { trainProgress } from './retrieval-index.js';

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
