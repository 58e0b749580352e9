import { describe, expect, it } from 'vitest';
import { appBenchCatalogSource } from '../catalog.js';
import { appBenchCategory } from '../categories.js';
import { dialoguePath, pathRecord } from './planning-path.js';
import type { SgdCall, SgdSourceDialogue } from './sgd-source.js';

/* Issue 29: the rules of the planning path, on hand-made calls (invented values). */

const catalog = appBenchCatalogSource.load({});
const call = (
  intent: string,
  params: Record<string, string>,
  results: Array<Record<string, string>>,
): SgdCall => ({
  turn: 0,
  service: 'Trains_1',
  intent,
  params,
  results,
});
const trip = { from: 'Springfield', to: 'Shelbyville', date_of_journey: '2019-03-04' };
const dialogue = (calls: SgdCall[], services = ['Trains_1']): SgdSourceDialogue => ({
  id: 'test:x',
  services,
  turns: [],
  calls,
});
// the search answers 1 adult; the user then books for 2 (SGD's search echoes its own defaults)
const search = call('FindTrains', trip, [
  { ...trip, number_of_adults: '1', class: 'Value', journey_start_time: '08:00' },
  { ...trip, number_of_adults: '1', class: 'Flexible', journey_start_time: '09:00' },
]);
const book = (time: string, results: Array<Record<string, string>> = [{ ...trip }]) =>
  call(
    'GetTrainTickets',
    { ...trip, number_of_adults: '2', class: 'Value', journey_start_time: time, trip_protection: 'False' },
    results,
  );
const pathOf = (d: SgdSourceDialogue, repeats: 'all' | 'last') => {
  const p = dialoguePath(d, { catalog, repeats });
  if ('rejected' in p) throw new Error(p.detail);
  return p.calls;
};

describe('planning path', () => {
  it('value rule: a reference only where the first row returned that value; name rule: wherever the name matches', () => {
    const calls = pathOf(dialogue([search, book('09:00')]), 'all');
    expect(pathRecord(calls, catalog, 'value').output.api_results[1]).toBe(
      "from, to, from_station, to_station, date_of_journey, journey_start_time, total, number_of_adults, class, trip_protection = gettraintickets(#class=class, #date_of_journey=date_of_journey, #from=from, #journey_start_time='09:00', #number_of_adults='2', #to=to, #trip_protection='False')",
    );
    expect(pathRecord(calls, catalog, 'name').output.api_results[1]).toContain(
      '#journey_start_time=journey_start_time, #number_of_adults=number_of_adults',
    );
    expect(pathRecord(calls, catalog, 'value').output.user_aware_arguments).toEqual({
      ...trip,
      journey_start_time: '09:00',
      number_of_adults: '2',
      trip_protection: 'False',
    });
  });

  it('a booking that failed and was retried stays with --repeats all, goes with last; one never retried drops the dialogue', () => {
    const d = dialogue([search, book('08:00', []), book('08:00')]);
    expect(pathOf(d, 'all').map((c) => c.api)).toEqual(['findtrains', 'gettraintickets', 'gettraintickets']);
    expect(pathOf(d, 'last').map((c) => c.api)).toEqual(['findtrains', 'gettraintickets']);
    expect(dialoguePath(dialogue([search, book('08:00', [])]), { catalog, repeats: 'all' })).toEqual({
      rejected: 'no-result',
      detail: 'Trains.gettraintickets at turn 0 returned no row',
    });
    expect(dialoguePath(dialogue([search], ['Trains_1', 'Hotels_4']), { catalog, repeats: 'all' })).toEqual({
      rejected: 'other-service',
      detail: 'Hotels_4 is not an AppBench App',
    });
  });

  it('categories by the paper: Apps × calls per App', () => {
    expect([
      appBenchCategory(['Trains']),
      appBenchCategory(['Trains', 'Trains']),
      appBenchCategory(['Trains', 'Weather']),
      appBenchCategory(['Trains', 'Weather', 'Trains']),
    ]).toEqual(['ss', 'sm', 'ms', 'mm']);
  });
});
