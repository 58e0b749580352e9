import { describe, expect, it } from 'vitest';
import { carEventWeather, carRental, goldReply } from './__fixtures__/hand-made.js';
import { officialMatch, officialMetrics, officialSame, officialSampleCounts } from './score-official.js';
import { extractNameParams, splitOfficialReply } from './score-official-parse.js';

const SEARCH = 'car_type, car_name, pickup_location, start_date, pickup_time, city, end_date, price_per_day';
const RESERVE =
  'car_type, car_name, pickup_location, start_date, pickup_time, end_date, price_per_day, add_insurance';

describe('splitOfficialReply (docs/appbench.md, "Line splitting")', () => {
  it('keeps App: [..] lines, strips brackets, ignores the rest', () => {
    const reply = [
      'Here is the plan:',
      "Rents: [a, b = getcarsavailable(#city='Oslo')] trailing",
      'no colon [x = f()]',
      '1. Rents: [x = reservecar(#car_type=car_type)]',
      '  Weather: [t = getweather(#city=[Lyon])]',
      ': [x = f()]',
      'Rents: x = getride()',
    ].join('\n');
    expect(splitOfficialReply(reply)).toEqual({
      // line 2 matches the anchored regex (group 2 ends at the last "]"), line 4 and 5 go through
      // the ":" + "[" + "]" branch (text before the first ":"), line 6 has an empty App (API kept),
      // line 7 has no brackets and is dropped
      apps: ['Rents', '1. Rents', 'Weather'],
      apis: [
        "a, b = getcarsavailable(#city='Oslo')",
        'x = reservecar(#car_type=car_type)',
        't = getweather(#city=Lyon)',
        'x = f()',
      ],
    });
  });
});

describe('extractNameParams (docs/appbench.md, "Call parsing")', () => {
  it('parses name, returns and args, keeping quotes and lower-casing keys', () => {
    const c = extractNameParams("a, b = Trains_FindTrains(#From='Oslo', to=x)")!;
    expect(c.name).toBe('findtrains');
    expect(c.returns).toEqual(['a', 'b']);
    expect([...c.args]).toEqual([
      ['#from', "'Oslo'"],
      ['#to', 'x'],
    ]);
  });
  it('mangles underscore names to the segment after the first "_"', () => {
    expect(extractNameParams('x = book_stylist_appointment()')!.name).toBe('stylist');
    expect(extractNameParams('x = Services_book_stylist_appointment()')!.name).toBe('book');
  });
  it('skips pieces with two "=", blanks the previous key for pieces without "="', () => {
    const c = extractNameParams("x = f(#a='1', #b='x=y', #c='Oslo, Norway', #d='2')")!;
    // "#b='x=y'" has two "=" → skipped; "Norway'" has none → the last key (#c) becomes ""
    expect([...c.args]).toEqual([
      ['#a', "'1'"],
      ['#c', ''],
      ['#d', "'2'"],
    ]);
    // a piece without "=" before any key is skipped; empty arg lists give no args
    expect([...extractNameParams('x = f(oops, #a=1)')!.args]).toEqual([['#a', '1']]);
    expect(extractNameParams('x = f()')!.args.size).toBe(0);
  });
  it('stops the argument list at the first ")" and rejects calls without "ret ="', () => {
    expect([...extractNameParams("x = f(#a='(1)', #b='2')")!.args]).toEqual([['#a', "'(1"]]);
    expect(extractNameParams("getweather(#city='Lyon')")).toBeUndefined();
    expect(extractNameParams("x = Weather.getweather(#city='Lyon')")).toBeUndefined();
  });
});

describe('official helpers', () => {
  it('same(): quote-stripped equality or substring either way', () => {
    expect(officialSame("'2019-03-12'", "'2019-03-1'")).toBe(true);
    expect(officialSame('pickup_location', 'location')).toBe(true);
    expect(officialSame("'Oslo'", "''")).toBe(true); // empty matches anything
    expect(officialSame("'Oslo'", "'Bergen'")).toBe(false);
  });
  it('match_evaluate caps hits at 1 per sample', () => {
    expect(officialMatch(['Rents', 'Rents'], ['rents', 'rents'])).toEqual({ em: 1, hit: 1 });
    expect(officialMatch(['x', 'Rents'], ['Rents'])).toEqual({ em: 0, hit: 1 });
    expect(officialMatch([], ['Rents'])).toEqual({ em: 0, hit: 0 });
  });
});

describe('officialSampleCounts / officialMetrics', () => {
  it('reproduces the worked example of docs/appbench.md (hand-made values)', () => {
    const reply = [
      `Rents: [${SEARCH} = Rents_getcarsavailable(#city='Oslo', #start_date='2019-03-04', #pickup_time='10:00', #end_date='2019-03-06', #car_type='Compact')]`,
      `Rents: [${RESERVE} = Rents_reservecar(#pickup_location=pickup_location, #start_date=start_date, #pickup_time=pickup_time, #end_date='2019-03-06', #car_type='Compact', #add_insurance='True')]`,
    ].join('\n');
    const c = officialSampleCounts(carRental, reply);
    // 11 args each side; 3 unquoted predictions + 2 UA-fallback increments (car_type, end_date) = 5
    expect(c).toMatchObject({
      predApps: 2,
      goldApps: 2,
      appEM: 1,
      appHit: 1,
      predApis: 2,
      apiHit: 1,
      predArgs: 11,
      goldArgs: 11,
      argHit: 11,
      predDep: 5,
      goldDep: 5,
      depHit: 5,
      unitApiEM: 2,
      complete: 1,
    });
    const m = officialMetrics([c]);
    // App F1 = F1(1/2, 1/2) = 0.5; API likewise; args F1(11/11, 11/11) = 1;
    // dep F1(5/5, 5/5) = 1; non-dep F1((11-5)/(11-5), (11-5)/(11-5)) = 1; Succ 1/1
    expect(m).toMatchObject({
      n: 1,
      appF1: 0.5,
      apiF1: 0.5,
      argF1: 1,
      success: 1,
      depArgF1: 1,
      nonDepArgF1: 1,
      appEM: 1,
      apiEM: 1,
    });
  });

  it('uses the `past` fallback and bumps predDep when UA was overridden later', () => {
    const reply = goldReply(carEventWeather).replace('findevents(#city=city', "findevents(#city='Oslo'");
    const c = officialSampleCounts(carEventWeather, reply);
    // findevents.city: gold `city` vs 'oslo' fails, UA city 'bergen' fails, past (getcarsavailable.city
    // = 'oslo') matches → hit, depHit, predDep 0 + 1
    expect(c).toMatchObject({
      argHit: 7,
      goldArgs: 7,
      predArgs: 7,
      predDep: 1,
      goldDep: 1,
      depHit: 1,
      complete: 1,
    });
    const m = officialMetrics([c]);
    // App F1 = F1(1/3, 1/3) = 1/3; non-dep: (7-1)/(7-1) both sides = 1
    expect(m.appF1).toBeCloseTo(1 / 3, 12);
    expect(m.nonDepArgF1).toBe(1);
    expect(m.depArgF1).toBe(1);
  });

  it('applies the correction map, stray quote included', () => {
    const r = structuredClone(carRental);
    r.output.api_results[0] = r.output.api_results[0]!.replace("'Oslo'", "'Mexico City'");
    const reply = goldReply(r).replace("'Mexico City'", "'Ciudad de Mexico'");
    // 'ciudad de mexico' → "'mexico city''" → quotes stripped → equals 'mexico city'
    expect(officialSampleCounts(r, reply).argHit).toBe(11);
    const la = goldReply(r).replace("'Mexico City'", "'NYC'");
    expect(officialSampleCounts(r, la).argHit).toBe(10); // → 'new york' ≠ 'mexico city'
  });

  it('deletes backslashes before parsing predicted arguments', () => {
    const reply = goldReply(carRental).replace("#city='Oslo'", "#city=\\'Oslo\\'");
    expect(officialSampleCounts(carRental, reply).argHit).toBe(11);
  });

  it('guards zero denominators like upstream and flags Python ZeroDivisionError cases', () => {
    const c = officialSampleCounts(carRental, '');
    const m = officialMetrics([c]);
    // no predictions: app/API precision divide by zero upstream → 0 here and flagged;
    // arg F1 = F1(0, 0) = 0; dep F1(1, 1) = 1 (both zero-guarded); non-dep: ndPred 0 → 1,
    // recall guard tests totGoldDep (0) → 1; Succ 0
    expect(m).toMatchObject({ appF1: 0, apiF1: 0, argF1: 0, depArgF1: 1, nonDepArgF1: 1, success: 0 });
    expect(m.undefinedMetrics).toEqual(['appF1', 'apiF1']);
    expect(officialMetrics([]).undefinedMetrics).toContain('success');
  });
});
