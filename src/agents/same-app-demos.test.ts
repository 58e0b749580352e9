import { describe, expect, it } from 'vitest';
import { sameAppDemos } from './same-app-demos.js';

const pool = [
  { id: 'a', instruction: 'Weather in Oslo', reply: 'W1', apps: ['Weather'] },
  { id: 'b', instruction: 'Cab and hotel', reply: 'RH', apps: ['Rents', 'Hotels'] },
  { id: 'c', instruction: 'Rent a car', reply: 'R1', apps: ['Rents', 'Rents'] },
  { id: 'd', instruction: 'Book a cab to the airport', reply: 'R2', apps: ['Rents'] },
  { id: 'e', instruction: 'Train to Paris', reply: 'T1', apps: ['Trains'] },
];

describe('sameAppDemos', () => {
  it('ranks by shared apps, then app-count closeness, then pool order; never the instruction itself', async () => {
    const guesses: Record<string, string[]> = {
      'Book a cab to the airport': ['Rents'],
      'Cab then hotel': ['Rents', 'Hotels'],
      'Nothing known': [],
    };
    const pick = sameAppDemos(pool, 2, { appsOf: (i) => guesses[i] ?? [] });
    expect(await pick('Book a cab to the airport')).toEqual([
      { instruction: 'Rent a car', reply: 'R1' },
      { instruction: 'Cab and hotel', reply: 'RH' },
    ]);
    expect(await pick('Cab then hotel')).toEqual([
      { instruction: 'Cab and hotel', reply: 'RH' },
      { instruction: 'Rent a car', reply: 'R1' },
    ]);
    expect(await pick('Nothing known')).toEqual([]);
  });

  it('returns fewer than k when few share an app, and nothing for k = 0', async () => {
    const pick = sameAppDemos(pool, 3, { appsOf: () => ['Trains'] });
    expect(await pick('x')).toEqual([{ instruction: 'Train to Paris', reply: 'T1' }]);
    expect(await sameAppDemos(pool, 0, { appsOf: () => ['Trains'] })('x')).toEqual([]);
  });
});
