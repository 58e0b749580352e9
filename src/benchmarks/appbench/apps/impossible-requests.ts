import { ApiaryError } from '../../../shared/index.js';
import { normalizeSlotValue } from './normalize-slot-value.js';

/**
 * What the real services behind SGD's schemas would refuse, whatever the recorded rows say: a
 * date that does not exist, a period that ends before it starts, a trip to where it starts. The
 * slot names cover every SGD version (the AppBench catalog accepts all of them).
 */

/** (start, end) slots: the end may equal the start (a same-day rental) but not precede it. */
const PERIODS: ReadonlyArray<readonly [start: string, end: string, what: string]> = [
  ['pickup_date', 'dropoff_date', 'a car cannot be returned before it is picked up'],
  ['start_date', 'end_date', 'a car cannot be returned before it is picked up'],
  ['check_in_date', 'check_out_date', 'a stay cannot end before it starts'],
  // not a flight's return before its departure: dev_ms#34's gold plan books one (its departure date flows
  // from a bus search, not from the instruction), and the official gold plans must stay executable
];

/** (origin, destination) slots of the bus, train and flight services. */
const TRIPS: ReadonlyArray<readonly [from: string, to: string]> = [
  ['from_location', 'to_location'],
  ['origin', 'destination'],
  ['origin_city', 'destination_city'],
  ['origin_airport', 'destination_airport'],
  ['from_city', 'to_city'],
  ['from', 'to'],
];

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const single = (value: unknown): string | undefined =>
  typeof value === 'string' && normalizeSlotValue(value) !== undefined ? value : undefined;

/** A date argument in SGD's `YYYY-MM-DD` (after normalisation: `2019/3/5` too), else undefined. */
function isoDate(value: unknown): string | undefined {
  const text = single(value) === undefined ? undefined : normalizeSlotValue(value);
  return text !== undefined && ISO_DATE.test(text) ? text : undefined;
}

/** Whether an ISO date's day exists (2019-02-29 does not). */
function dateExists(text: string): boolean {
  const m = ISO_DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = m.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Throws INPUT_INVALID (naming the call, the arguments and why) when `args` asks for something
 * impossible. `dateSlots`: the arguments typed as dates; only ISO dates are judged, as SGD writes them.
 */
export function refuseImpossibleRequest(
  where: string,
  args: Record<string, unknown>,
  dateSlots: ReadonlySet<string>,
): void {
  const refuse = (why: string) => new ApiaryError('INPUT_INVALID', `${where}: ${why}`);
  for (const name of new Set([...dateSlots, ...PERIODS.flatMap(([start, end]) => [start, end])])) {
    const date = isoDate(args[name]);
    if (date !== undefined && !dateExists(date))
      throw refuse(`argument "${name}" is "${args[name]}", a date that does not exist`);
  }
  for (const [start, end, what] of PERIODS) {
    const [from, to] = [isoDate(args[start]), isoDate(args[end])];
    if (from !== undefined && to !== undefined && to < from)
      throw refuse(`"${end}" ${to} is before "${start}" ${from}: ${what}`);
  }
  for (const [from, to] of TRIPS) {
    const [origin, destination] = [single(args[from]), single(args[to])];
    if (origin === undefined || destination === undefined) continue;
    if (normalizeSlotValue(origin) === normalizeSlotValue(destination))
      throw refuse(`"${from}" and "${to}" are both "${origin}": a trip must go somewhere else`);
  }
}
