import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/index.js';
import { registerBuiltinPlugins } from '../builtin.js';
import {
  carEventWeather,
  carRental,
  goldReply,
  sampleOf,
  stylist,
  twoWeathers,
  weatherAndFood,
} from './__fixtures__/hand-made.js';
import type { AppBenchRecord } from './record.js';
import { formatAppBenchReport } from './report-format.js';
import {
  AppBenchSampleScoreSchema,
  scoreAppBench,
  scoreAppBenchSample,
  summarizeAppBench,
} from './score-appbench.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const catalog = loadCatalog('appbench');

const SEARCH = 'car_type, car_name, pickup_location, start_date, pickup_time, city, end_date, price_per_day';
const RESERVE =
  'car_type, car_name, pickup_location, start_date, pickup_time, end_date, price_per_day, add_insurance';
const WEATHER = 'precipitation, humidity, wind, temperature, city, date';

function score(record: AppBenchRecord, reply: string | null, id = 'sm-0') {
  return summarizeAppBench([scoreAppBenchSample(sampleOf(record, id), { id, reply }, catalog)]);
}

interface Expected {
  appF1: number;
  apiF1: number;
  argF1: number;
  dep: number;
  indep: number;
  success: number;
}

interface Case {
  name: string;
  record: AppBenchRecord;
  reply: string;
  official: Expected;
  corrected: Expected & { appEM: number; apiEM: number };
}

const swap = (text: string) => text.split('\n').reverse().join('\n');

const cases: Case[] = [
  {
    name: 'gold as prediction',
    record: carRental,
    reply: goldReply(carRental),
    // official App/API: one hit of 2 on each side → F1(1/2, 1/2) = 0.5
    official: { appF1: 0.5, apiF1: 0.5, argF1: 1, dep: 1, indep: 1, success: 1 },
    corrected: { appF1: 1, apiF1: 1, argF1: 1, dep: 1, indep: 1, success: 1, appEM: 1, apiEM: 1 },
  },
  {
    name: 'worked example (docs/appbench.md): dependencies given as literals',
    record: carRental,
    reply: [
      `Rents: [${SEARCH} = Rents_getcarsavailable(#city='Oslo', #start_date='2019-03-04', #pickup_time='10:00', #end_date='2019-03-06', #car_type='Compact')]`,
      `Rents: [${RESERVE} = Rents_reservecar(#pickup_location=pickup_location, #start_date=start_date, #pickup_time=pickup_time, #end_date='2019-03-06', #car_type='Compact', #add_insurance='True')]`,
    ].join('\n'),
    official: { appF1: 0.5, apiF1: 0.5, argF1: 1, dep: 1, indep: 1, success: 1 },
    // corrected: car_type and end_date of reservecar should be references → 9/11 hits of 11 each side;
    // dependent: 3 hits, 3 predicted refs, 5 gold refs → F1(1, 3/5) = 0.75;
    // independent: 6 hits, 8 predicted literals, 6 gold literals → F1(6/8, 1) = 6/7
    corrected: { appF1: 1, apiF1: 1, argF1: 9 / 11, dep: 0.75, indep: 6 / 7, success: 0, appEM: 1, apiEM: 1 },
  },
  {
    name: 'independent calls swapped',
    record: weatherAndFood,
    reply: swap(goldReply(weatherAndFood)),
    official: { appF1: 0.5, apiF1: 0.5, argF1: 1, dep: 1, indep: 1, success: 1 },
    corrected: { appF1: 1, apiF1: 1, argF1: 1, dep: 1, indep: 1, success: 1, appEM: 1, apiEM: 1 },
  },
  {
    name: 'missing call',
    record: weatherAndFood,
    reply: goldReply(weatherAndFood).split('\n')[0]!,
    // official: App F1(1/1, 1/2) = 2/3, API same; args F1(2/2, 2/4) = 2/3; dep F1(1, 1) (guards);
    // non-dep: 2/2 and recall guard on totGoldDep = 0 → 1 → F1 1; Succ 0 (appEM 0)
    official: { appF1: 2 / 3, apiF1: 2 / 3, argF1: 2 / 3, dep: 1, indep: 1, success: 0 },
    // corrected: apps 1 hit, 1 pred, 2 gold → 2/3; independent args 2/2, 2/4 → 2/3; no dependent args either side → 1
    corrected: {
      appF1: 2 / 3,
      apiF1: 2 / 3,
      argF1: 2 / 3,
      dep: 1,
      indep: 2 / 3,
      success: 0,
      appEM: 0,
      apiEM: 0,
    },
  },
  {
    name: 'extra app',
    record: weatherAndFood,
    reply: `${goldReply(weatherAndFood)}\nTravel: [location, attraction_name = findattractions(#location='Lyon')]`,
    // official: App F1(1/3, 1/2) = 0.4, API same; args F1(4/5, 4/4) = 8/9; non-dep F1(4/5, 1) = 8/9
    official: { appF1: 0.4, apiF1: 0.4, argF1: 8 / 9, dep: 1, indep: 8 / 9, success: 0 },
    // corrected: App F1(2/3, 2/2) = 0.8; args F1(4/5, 4/4) = 8/9
    corrected: { appF1: 0.8, apiF1: 0.8, argF1: 8 / 9, dep: 1, indep: 8 / 9, success: 0, appEM: 0, apiEM: 0 },
  },
  {
    name: 'wrong literal',
    record: weatherAndFood,
    reply: goldReply(weatherAndFood).replace("'2019-03-05'", "'2019-03-06'"),
    // official: args 3/4 → 0.75; non-dep F1(3/4, 1 by the totGoldDep guard) = 6/7
    official: { appF1: 0.5, apiF1: 0.5, argF1: 0.75, dep: 1, indep: 6 / 7, success: 0 },
    corrected: { appF1: 1, apiF1: 1, argF1: 0.75, dep: 1, indep: 0.75, success: 0, appEM: 1, apiEM: 1 },
  },
  {
    name: 'truncated literal (official substring match)',
    record: weatherAndFood,
    reply: goldReply(weatherAndFood).replace("'2019-03-05'", "'2019-03-0'"),
    official: { appF1: 0.5, apiF1: 0.5, argF1: 1, dep: 1, indep: 1, success: 1 },
    corrected: { appF1: 1, apiF1: 1, argF1: 0.75, dep: 1, indep: 0.75, success: 0, appEM: 1, apiEM: 1 },
  },
  {
    name: 'wrong dependency (other output)',
    record: carRental,
    reply: goldReply(carRental).replace('#pickup_location=pickup_location', '#pickup_location=car_name'),
    // official: 10/11 args; dep: 4 hits, 5 predicted unquoted, 5 gold → 0.8; non-dep 6/6 both → 1
    official: { appF1: 0.5, apiF1: 0.5, argF1: 10 / 11, dep: 0.8, indep: 1, success: 0 },
    corrected: { appF1: 1, apiF1: 1, argF1: 10 / 11, dep: 0.8, indep: 1, success: 0, appEM: 1, apiEM: 1 },
  },
  {
    name: 'dangling dependency (official substring match)',
    record: carRental,
    reply: goldReply(carRental).replace('#pickup_location=pickup_location', '#pickup_location=location'),
    // official: "location" is a substring of "pickup_location" → counted as a hit
    official: { appF1: 0.5, apiF1: 0.5, argF1: 1, dep: 1, indep: 1, success: 1 },
    // corrected: no earlier call returns `location` → wrong
    corrected: { appF1: 1, apiF1: 1, argF1: 10 / 11, dep: 0.8, indep: 1, success: 0, appEM: 1, apiEM: 1 },
  },
  {
    name: 'duplicate calls in another order',
    record: twoWeathers,
    reply: swap(goldReply(twoWeathers)),
    // official: both sides collapse to their last getweather (gold Nice, pred Lyon): city misses
    // (UA city is 'Nice'), date hits → args F1(1/2, 1/2) = 0.5; non-dep F1(1/2, 1) = 2/3
    official: { appF1: 0.5, apiF1: 0.5, argF1: 0.5, dep: 1, indep: 2 / 3, success: 0 },
    corrected: { appF1: 1, apiF1: 1, argF1: 1, dep: 1, indep: 1, success: 1, appEM: 1, apiEM: 1 },
  },
  {
    name: 'duplicate calls, first one wrong (hidden by collapsing)',
    record: twoWeathers,
    reply: goldReply(twoWeathers).replace("'Lyon'", "'Paris'"),
    official: { appF1: 0.5, apiF1: 0.5, argF1: 1, dep: 1, indep: 1, success: 1 },
    // corrected: 3 of 4 arguments
    corrected: { appF1: 1, apiF1: 1, argF1: 0.75, dep: 1, indep: 0.75, success: 0, appEM: 1, apiEM: 1 },
  },
  {
    name: 'unparseable line (missing comma)',
    record: weatherAndFood,
    reply: goldReply(weatherAndFood).replace("#city='Lyon', #date", "#city='Lyon' #date"),
    // official: the piece with two "=" is skipped → getweather has no args; findrestaurants 2/2;
    // args F1(2/2, 2/4) = 2/3; Succ 0 (getweather not all hit)
    official: { appF1: 0.5, apiF1: 0.5, argF1: 2 / 3, dep: 1, indep: 1, success: 0 },
    // corrected: the quote after Lyon does not close (no ", #key=" follows), so city is
    // "Lyon' #date='2019-03-05" (value error) and date is missing: args F1(2/3, 2/4) = 4/7
    corrected: { appF1: 1, apiF1: 1, argF1: 4 / 7, dep: 1, indep: 4 / 7, success: 0, appEM: 1, apiEM: 1 },
  },
  {
    name: 'unparseable line (unquoted two-word value)',
    record: weatherAndFood,
    reply: goldReply(weatherAndFood).replace("#city='Lyon'", '#city=Lyon City'),
    // official: "lyon" is a substring of "lyon city" → hit; the unquoted value is a predicted
    // dependency: predDep 1, goldDep 0, depHit 0 → dep F1(0/1, 1) = 0; non-dep precision
    // 4 / (4 - 1) = 4/3, recall 1 (guard) → F1 = 2·(4/3)/(7/3) = 8/7 (above 1!)
    official: { appF1: 0.5, apiF1: 0.5, argF1: 1, dep: 0, indep: 8 / 7, success: 1 },
    // corrected: the line is a failed call: 2 predicted calls, 1 hit → F1(1/2, 1/2) = 0.5;
    // args F1(2/2, 2/4) = 2/3
    corrected: { appF1: 0.5, apiF1: 0.5, argF1: 2 / 3, dep: 1, indep: 2 / 3, success: 0, appEM: 0, apiEM: 0 },
  },
  {
    name: 'App.api( form',
    record: weatherAndFood,
    reply: goldReply(weatherAndFood).replace('= getweather(', '= Weather.getweather('),
    // official: unparseable → name "" (still counted): API hit 1 of 2 → 0.5; apiEM 0 → Succ 0
    official: { appF1: 0.5, apiF1: 0.5, argF1: 2 / 3, dep: 1, indep: 1, success: 0 },
    corrected: { appF1: 1, apiF1: 1, argF1: 1, dep: 1, indep: 1, success: 1, appEM: 1, apiEM: 1 },
  },
  {
    name: 'call without "App:" whose API name carries the App',
    record: weatherAndFood,
    reply: goldReply(weatherAndFood)
      .replace('Weather: [', '')
      .replace(')]\nRestaurants', ')\nRestaurants')
      .replace('= getweather(', '= Weather_getweather('),
    // official: a line without ":" is ignored altogether → 1 App and 1 call predicted:
    // App F1(1/1, 1/2) = 2/3, API same; args F1(2/2, 2/4) = 2/3; non-dep 2/2 and guard → 1
    official: { appF1: 2 / 3, apiF1: 2 / 3, argF1: 2 / 3, dep: 1, indep: 1, success: 0 },
    // corrected: the App is read from the "Weather_" prefix → everything right
    corrected: { appF1: 1, apiF1: 1, argF1: 1, dep: 1, indep: 1, success: 1, appEM: 1, apiEM: 1 },
  },
  {
    name: 'empty prediction',
    record: weatherAndFood,
    reply: '',
    // official: no predicted apps → precision 0/0 (ZeroDivisionError upstream, 0 here); dep and
    // non-dep F1 are 1 through the zero guards
    official: { appF1: 0, apiF1: 0, argF1: 0, dep: 1, indep: 1, success: 0 },
    corrected: { appF1: 0, apiF1: 0, argF1: 0, dep: 1, indep: 0, success: 0, appEM: 0, apiEM: 0 },
  },
  {
    name: 'underscore API name with App prefix',
    record: stylist,
    reply: "Services: [stylist_name, city = Services_find_stylist_provider(#city='Lyon')]",
    // official: pred name "find", gold name "stylist" → API F1 0; args 0/1 hits → 0;
    // non-dep F1(0/1, 1) = 0
    official: { appF1: 1, apiF1: 0, argF1: 0, dep: 1, indep: 0, success: 0 },
    corrected: { appF1: 1, apiF1: 1, argF1: 1, dep: 1, indep: 1, success: 1, appEM: 1, apiEM: 1 },
  },
  {
    name: 'underscore API name without prefix',
    record: stylist,
    reply: "Services: [stylist_name, city = find_stylist_provider(#city='Lyon')]",
    // both sides mangle to "stylist"
    official: { appF1: 1, apiF1: 1, argF1: 1, dep: 1, indep: 1, success: 1 },
    corrected: { appF1: 1, apiF1: 1, argF1: 1, dep: 1, indep: 1, success: 1, appEM: 1, apiEM: 1 },
  },
  {
    name: 'dependency given as a literal matched by the past fallback',
    record: carEventWeather,
    reply: goldReply(carEventWeather).replace('findevents(#city=city', "findevents(#city='Oslo'"),
    // official: App F1(1/3, 1/3); everything else matches (past fallback)
    official: { appF1: 1 / 3, apiF1: 1 / 3, argF1: 1, dep: 1, indep: 1, success: 1 },
    // corrected: 6/7 args; dependent: 0 predicted refs, 1 gold → 0; independent F1(6/7, 6/6) = 12/13
    corrected: { appF1: 1, apiF1: 1, argF1: 6 / 7, dep: 0, indep: 12 / 13, success: 0, appEM: 1, apiEM: 1 },
  },
];

describe('scoreAppBenchSample: official and corrected side by side', () => {
  it.each(cases)('$name', (c) => {
    const r = score(c.record, c.reply);
    const o = r.official;
    const k = r.corrected;
    const got = {
      official: {
        appF1: o.appF1,
        apiF1: o.apiF1,
        argF1: o.argF1,
        dep: o.depArgF1,
        indep: o.nonDepArgF1,
        success: o.success,
      },
      corrected: {
        appF1: k.appF1,
        apiF1: k.apiF1,
        argF1: k.argF1,
        dep: k.depArgF1,
        indep: k.indepArgF1,
        success: k.success,
        appEM: k.appEM,
        apiEM: k.apiEM,
      },
    };
    for (const mode of ['official', 'corrected'] as const)
      for (const [metric, value] of Object.entries(c[mode]))
        expect(got[mode][metric as keyof Expected], `${mode} ${metric}`).toBeCloseTo(value, 12);
  });
});

describe('failed generations', () => {
  it('are dropped by the official scorer and count as empty in the corrected one', () => {
    const items = [
      {
        sample: sampleOf(weatherAndFood, 'ms-0'),
        prediction: { id: 'ms-0', reply: goldReply(weatherAndFood) },
      },
      { sample: sampleOf(carRental, 'sm-0'), prediction: { id: 'sm-0', reply: null, error: 'timeout' } },
    ];
    const r = scoreAppBench(items, catalog);
    expect(r.total).toBe(2);
    expect(r.scoredOfficial).toBe(1);
    expect(r.failedIds).toEqual(['sm-0']);
    // official: only ms-0 → Succ 1/1
    expect(r.official.success).toBe(1);
    // corrected: ms-0 perfect, sm-0 empty → Succ 1/2; App F1(2/2, 2/4) = 2/3
    expect(r.corrected.success).toBe(0.5);
    expect(r.corrected.appF1).toBeCloseTo(2 / 3, 12);
    expect(r.notes[0]).toContain('1 scored / 2 total');
  });
});

describe('summarizeAppBench', () => {
  const items = [
    { sample: sampleOf(carRental, 'sm-0'), prediction: { id: 'sm-0', reply: goldReply(carRental) } },
    {
      sample: sampleOf(weatherAndFood, 'ms-0'),
      prediction: { id: 'ms-0', reply: swap(goldReply(weatherAndFood)) },
    },
    { sample: sampleOf(twoWeathers, 'sm-1'), prediction: { id: 'sm-1', reply: 'I cannot help.' } },
    { sample: sampleOf(stylist, 'ss-0'), prediction: { id: 'ss-0', reply: null } },
  ];
  const perSample = items.map((i) => scoreAppBenchSample(i.sample, i.prediction, catalog));

  it('recomputes the same report from per-sample scores stored as JSON', () => {
    const stored = perSample.map((s) => AppBenchSampleScoreSchema.parse(JSON.parse(JSON.stringify(s))));
    expect(summarizeAppBench(stored)).toEqual(scoreAppBench(items, catalog));
  });

  it('pools counts (micro averages) and breaks down by category and plan shape', () => {
    const r = summarizeAppBench(perSample);
    // official over 3 kept samples: app hits 1 + 1 + 0 = 2; predicted apps 2 + 2 + 0; gold 2 + 2 + 2
    // → F1(2/4, 2/6) = 0.4; Succ 2/3
    expect(r.official.appF1).toBeCloseTo(0.4, 12);
    expect(r.official.success).toBeCloseTo(2 / 3, 12);
    // corrected over 4: app hits 2 + 2 + 0 + 0, predicted 4, gold 2 + 2 + 2 + 1 = 7 → F1(1, 4/7) = 8/11
    expect(r.corrected.appF1).toBeCloseTo(8 / 11, 12);
    expect(r.corrected.success).toBe(0.5);
    expect(r.byCategory.map((g) => [g.group, g.total, g.official.n])).toEqual([
      ['ss', 1, 0],
      ['sm', 2, 2],
      ['ms', 1, 1],
    ]);
    // car rental: one chain of 2; weather+food: 2 independent calls; two weathers: 2 independent; stylist: 1
    expect(r.byParallelScale.map((g) => [g.group, g.total])).toEqual([
      ['1', 2],
      ['2', 2],
    ]);
    expect(r.bySequentialScale.map((g) => [g.group, g.total])).toEqual([
      ['1', 3],
      ['2', 1],
    ]);
    const text = formatAppBenchReport(r);
    expect(text).toContain('official');
    expect(text).toContain('corrected');
    expect(text).toMatch(/App F1\s+40\.00\s+72\.73/);
  });
});

describe('error analysis (corrected)', () => {
  it('splits key and value errors into dependent/independent and tags time/space values', () => {
    const reply = [
      // wrong city (space), date missing (independent key), extra key
      `Rents: [${SEARCH} = getcarsavailable(#car_type='Compact', #city='Bergen', #end_date='2019-03-06', #pickup_time='10:00', #driver='me')]`,
      // end_date as a literal instead of a reference (dependent value error, time), start_date missing (dependent key)
      `Rents: [${RESERVE} = reservecar(#add_insurance='True', #car_type=car_type, #end_date='2019-03-06', #pickup_location=pickup_location, #pickup_time=pickup_time)]`,
      `Weather: [${WEATHER} = getweather(#city='Oslo')]`,
    ].join('\n');
    const s = scoreAppBenchSample(sampleOf(carRental, 'sm-0'), { id: 'sm-0', reply }, catalog);
    expect(s.errors).toEqual({
      missingCalls: 0,
      extraCalls: 1,
      keyMissingDep: 1,
      keyMissingIndep: 1,
      keyExtraDep: 0,
      keyExtraIndep: 1,
      valueDep: 1,
      valueIndep: 1,
      valueTime: 1,
      valueSpace: 1,
    });
    const r = summarizeAppBench([s]);
    expect(r.errors.keyErrors).toBe(3);
    expect(r.errors.valueErrors).toBe(2);
    expect(r.errors.timeShare).toBe(0.5);
    expect(r.errors.spaceShare).toBe(0.5);
  });
});

describe('gold as prediction', () => {
  it('scores 100 on every corrected metric for every hand-made record', () => {
    const records = { carRental, weatherAndFood, twoWeathers, stylist, carEventWeather };
    const items = Object.values(records).map((r, i) => ({
      sample: sampleOf(r, `mm-${i}`),
      prediction: { id: `mm-${i}`, reply: goldReply(r) },
    }));
    const { n, formatErrorRate, ...metrics } = scoreAppBench(items, catalog).corrected;
    expect(n).toBe(5);
    expect(formatErrorRate).toBe(0);
    expect(metrics).toEqual({
      appF1: 1,
      apiF1: 1,
      argF1: 1,
      depArgF1: 1,
      indepArgF1: 1,
      appEM: 1,
      apiEM: 1,
      success: 1,
    });
  });
});

describe('format errors', () => {
  const rate = (...replies: Array<string | null>) =>
    summarizeAppBench(
      replies.map((reply, i) =>
        scoreAppBenchSample(sampleOf(carRental, `mm-${i}`), { id: `mm-${i}`, reply }, catalog),
      ),
    ).corrected.formatErrorRate;

  it('a reply with no plan line is a format error; a readable plan is not; a failed generation is counted apart', () => {
    // plan-text agents reply '' when the model wrote no plan line (prose, a refusal)
    expect(rate('')).toBe(1);
    expect(rate('I am sorry, I cannot book cars.')).toBe(1);
    expect(rate('Rents: [oops')).toBe(1); // an unreadable call line, as before
    expect(rate(goldReply(carRental))).toBe(0);
    expect(rate(null)).toBe(0);
    expect(rate('', goldReply(carRental), null, 'no plan here')).toBe(0.5);
  });

  it('a tool-loop run that called nothing is a format error only when its replies could not be read', () => {
    const toolLoop = (decodeFailures: number) => ({
      ...scoreAppBenchSample(sampleOf(carRental, 'mm-0'), { id: 'mm-0', reply: '' }, catalog),
      agent: { stopReason: 'final', steps: 1, decodeFailures, callErrors: 0, repairs: 0 },
    });
    expect(summarizeAppBench([toolLoop(0)]).corrected.formatErrorRate).toBe(0);
    expect(summarizeAppBench([toolLoop(2)]).corrected.formatErrorRate).toBe(1);
  });
});
