import { describe, expect, it } from 'vitest';
import { normalizeSlotValue } from './normalize-slot-value.js';

describe('normalizeSlotValue', () => {
  it.each([
    // no value
    [undefined, undefined],
    [null, undefined],
    ['   ', undefined],
    ['dontcare', undefined],
    [' DontCare ', undefined],
    // booleans
    [true, 'true'],
    [false, 'false'],
    ['True', 'true'],
    [' FALSE ', 'false'],
    // numbers
    ['4.20', '4.2'],
    ['4.2', '4.2'],
    [4.2, '4.2'],
    ['31.00', '31'],
    [31, '31'],
    ['007', '7'],
    ['+3', '3'],
    ['-0', '0'],
    ['.5', '0.5'],
    ['1234567890123456789', '1234567890123456789'],
    // dates
    ['2019-03-05', '2019-03-05'],
    ['2019-3-5', '2019-03-05'],
    ['2019/03/05', '2019-03-05'],
    // times
    ['13:30', '13:30'],
    ['1:30 pm', '13:30'],
    ['1:30PM', '13:30'],
    ['01:30 p.m.', '13:30'],
    ['7 pm', '19:00'],
    ['12 am', '00:00'],
    ['12:15 pm', '12:15'],
    ['9:05', '09:05'],
    ['13:30:00', '13:30'],
    ['13 pm', '13 pm'],
    ['9:75', '9:75'],
    // text
    ['  San   Jose ', 'san jose'],
    ['Sino', 'sino'],
    ['408-247-8880', '408-247-8880'],
    [['a', 'B'], '["a","b"]'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeSlotValue(input)).toBe(expected);
  });

  it('makes equal what the matching rules call equal', () => {
    expect(normalizeSlotValue('4.20')).toBe(normalizeSlotValue('4.2'));
    expect(normalizeSlotValue('13:30')).toBe(normalizeSlotValue('1:30 pm'));
    expect(normalizeSlotValue('True')).toBe(normalizeSlotValue(true));
    expect(normalizeSlotValue('2')).toBe(normalizeSlotValue(2));
    expect(normalizeSlotValue('1:30')).not.toBe(normalizeSlotValue('1:30 pm'));
  });
});
