import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { loadCatalog } from '../catalog/index.js';
import { InputInvalidError } from '../shared/index.js';
import { parsePlanJson } from './plan-json.js';
import { parsePlanText } from './plan-text.js';
import type { Plan } from './schema.js';
import { validatePlan } from './validate-plan.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const catalog = loadCatalog('appbench', { dataDir: join(import.meta.dirname, '../../data') });
const issuesOf = (text: string) =>
  validatePlan(parsePlanText(text).plan, catalog).map((i) => [i.code, i.step, i.field]);

describe('validatePlan', () => {
  it('accepts a correct search-then-book plan', () => {
    const text = [
      "Rents: [car_type, pickup_location, start_date, pickup_time, end_date = getcarsavailable(#city='Warsaw', #start_date='2019-03-07', #pickup_time='13:30', #end_date='2019-03-13')]",
      "Rents: [ok = reservecar(#pickup_location=pickup_location, #start_date=start_date, #pickup_time=pickup_time, #end_date=end_date, #car_type=car_type, #add_insurance='True')]",
    ].join('\n');
    expect(issuesOf(text)).toEqual([]);
  });

  it('reports one issue per problem', () => {
    const text = [
      "Taxi: [x = getride(#destination='SFO')]", // unknown app
      "Rents: [x = findbus(#from_city='LA', #to_city='SF', #departure_date='2019-03-02')]", // API of another app
      "Rents: [x = teleport(#to='Mars')]", // unknown API
      "Rents: [c = getcarsavailable(#city='Warsaw', #start_date='2019-03-07', #pickup_time='1:30 pm', #end_date='tomorrow', #car_type='Truck', #color='red')]",
      'Weather: [t = getweather(#city=missing_output, #date=s1.nothing)]',
    ].join('\n');
    expect(issuesOf(text)).toEqual([
      ['unknown-app', 's1', 'app'],
      ['api-not-owned', 's2', 'api'],
      ['unknown-api', 's3', 'api'],
      ['type-mismatch', 's4', 'pickup_time'],
      ['type-mismatch', 's4', 'end_date'],
      ['enum-value', 's4', 'car_type'],
      ['unknown-argument', 's4', 'color'],
      ['dangling-ref', 's5', 'city'],
      ['unknown-output', 's5', 'date'],
    ]);
  });

  it('reports missing required arguments and the owning app', () => {
    const issues = validatePlan(parsePlanText("Rents: [x = findbus(#from_city='LA')]").plan, catalog);
    expect(issues[0]!.message).toBe('app "Rents" does not own "findbus" (owned by Buses)');
    const missing = validatePlan(parsePlanText("Buses: [x = findbus(#from_city='LA')]").plan, catalog);
    expect(missing.map((i) => [i.code, i.field])).toEqual([
      ['missing-argument', 'to_city'],
      ['missing-argument', 'departure_date'],
    ]);
  });

  it('reports a cycle and duplicate step ids', () => {
    const step = (id: string, from: string) => ({
      id,
      app: 'Weather',
      api: 'getweather',
      outputs: ['city'],
      args: { city: { kind: 'ref' as const, step: from, output: 'city' } },
    });
    expect(
      validatePlan({ steps: [step('a', 'b'), step('b', 'a')] }, catalog).map((i) => [i.code, i.message]),
    ).toEqual([['cycle', 'steps depend on each other in a cycle: a → b → a']]);
    const dup: Plan = {
      steps: [
        {
          id: 'a',
          app: 'Weather',
          api: 'getweather',
          outputs: [],
          args: { city: { kind: 'literal', value: 'Paris' } },
        },
        {
          id: 'a',
          app: 'Weather',
          api: 'getweather',
          outputs: [],
          args: { city: { kind: 'literal', value: 'Rome' } },
        },
      ],
    };
    expect(validatePlan(dup, catalog).map((i) => i.code)).toEqual(['duplicate-step']);
  });

  it('reports a reference whose output type cannot fill the parameter', () => {
    const mini = {
      name: 'mini',
      apps: [{ id: 'Cal', name: 'Cal', description: '', owner: 'app:Cal' }],
      apis: [
        {
          id: 'Cal.today',
          app: 'Cal',
          name: 'today',
          description: '',
          transactional: false,
          parameters: [],
          outputs: [{ name: 'date', type: { kind: 'primitive' as const, name: 'date' as const } }],
        },
        {
          id: 'Cal.repeat',
          app: 'Cal',
          name: 'repeat',
          description: '',
          transactional: false,
          parameters: [
            { name: 'times', type: { kind: 'primitive' as const, name: 'integer' as const }, required: true },
          ],
          outputs: [],
        },
      ],
    };
    const issues = validatePlan(
      parsePlanText('Cal: [date = today()]\nCal: [repeat(#times=date)]').plan,
      mini,
    );
    expect(issues.map((i) => [i.code, i.step, i.field, i.message])).toEqual([
      ['type-mismatch', 's2', 'times', 's1.date is date, parameter needs integer'],
    ]);
  });
});

describe('plan JSON errors name the file, record and field', () => {
  it('truncated JSON', () => {
    expect(() => parsePlanJson('{"steps": [', 'p.json')).toThrowError(/p\.json: not valid JSON/);
  });
  it('a wrong field type in a step', () => {
    try {
      parsePlanJson(
        JSON.stringify({
          steps: [
            { id: 's1', app: 'A', api: 'f', args: {}, outputs: [] },
            { id: 's2', app: 'A', api: 7, args: {}, outputs: [] },
          ],
        }),
        'p.json',
      );
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InputInvalidError);
      expect((e as Error).message).toMatch(/^p\.json: record steps\[1\]: field "api"/);
    }
  });
  it('an unknown value kind', () => {
    expect(() =>
      parsePlanJson(
        JSON.stringify({
          steps: [{ id: 's1', app: 'A', api: 'f', args: { x: { kind: 'magic' } }, outputs: [] }],
        }),
        'p.json',
      ),
    ).toThrowError(/record steps\[0\]: field "args\.x\.kind"/);
  });
});
