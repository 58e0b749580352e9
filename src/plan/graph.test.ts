import { describe, expect, it } from 'vitest';
import { analyzePlan, findCycle, topologicalLevels } from './graph.js';
import { parsePlanText } from './plan-text.js';
import type { Plan } from './schema.js';

const plan = (text: string): Plan => parsePlanText(text).plan;

// Hand-computed parallel scale (= weakly connected components) and sequential scale
// (= calls on the longest dependency chain) for six plans.
describe('plan analysis', () => {
  it('single call: 1 component, depth 1', () => {
    const a = analyzePlan(plan("Weather: [t = getweather(#city='Paris')]"));
    expect([a.parallelScale, a.sequentialScale]).toEqual([1, 1]);
  });

  it('search then book (SM): 1 component, depth 2', () => {
    const a = analyzePlan(
      plan("Rents: [car = getcarsavailable(#city='Warsaw')]\nRents: [ok = reservecar(#car_type=car)]"),
    );
    expect([a.parallelScale, a.sequentialScale, a.criticalPath]).toEqual([1, 2, ['s1', 's2']]);
  });

  it('two independent apps (MS): 2 components, depth 1, one level', () => {
    const a = analyzePlan(
      plan("Weather: [t = getweather(#city='Paris')]\nTrains: [x = findtrains(#to='Paris')]"),
    );
    expect([a.parallelScale, a.sequentialScale]).toEqual([2, 1]);
    expect(a.levels).toEqual([['s1', 's2']]);
  });

  it('restaurant + taxi (MM): find restaurant, then reserve and ride in parallel', () => {
    const a = analyzePlan(
      plan(
        [
          "Restaurants: [restaurant_name, address = findrestaurants(#category='Italian', #location='San Jose')]",
          "Restaurants: [date = reserverestaurant(#restaurant_name=restaurant_name, #location='San Jose', #time='19:00')]",
          "Rents: [ride_fare = getride(#destination=address, #number_of_seats='2', #ride_type='Regular')]",
        ].join('\n'),
      ),
    );
    expect([a.parallelScale, a.sequentialScale]).toEqual([1, 2]);
    expect(a.levels).toEqual([['s1'], ['s2', 's3']]);
  });

  it('two chains of different length (MM): 2 components, depth 3', () => {
    const a = analyzePlan(
      plan(
        [
          "Buses: [from_city = findbus(#to_city='LA')]",
          "Hotels: [where_to = searchhouse(#where_to='LA')]",
          'Buses: [departure_time = buybusticket(#from_city=from_city)]',
          'Hotels: [done = bookhouse(#where_to=where_to)]',
          'Payment: [paid = makepayment(#receiver=done)]',
        ].join('\n'),
      ),
    );
    expect([a.parallelScale, a.sequentialScale]).toEqual([2, 3]);
    expect(a.components).toEqual([
      ['s1', 's3'],
      ['s2', 's4', 's5'],
    ]);
    expect(a.criticalPath).toEqual(['s2', 's4', 's5']);
  });

  it('diamond: 1 component, depth 3', () => {
    const a = analyzePlan(
      plan(
        ["A: [x = f(#a='1')]", 'A: [y = g(#a=x)]', 'A: [z = h(#a=x)]', 'A: [w = k(#a=y, #b=z)]'].join('\n'),
      ),
    );
    expect([a.parallelScale, a.sequentialScale]).toEqual([1, 3]);
    expect(topologicalLevels(plan(["A: [x = f(#a='1')]", 'A: [y = g(#a=x)]'].join('\n')))).toEqual([
      ['s1'],
      ['s2'],
    ]);
  });

  it('finds a cycle written with explicit step references', () => {
    const p: Plan = {
      steps: [
        { id: 'a', app: 'A', api: 'f', outputs: ['x'], args: { v: { kind: 'ref', step: 'b', output: 'y' } } },
        { id: 'b', app: 'A', api: 'g', outputs: ['y'], args: { v: { kind: 'ref', step: 'a', output: 'x' } } },
      ],
    };
    expect(findCycle(p)).toEqual(['a', 'b', 'a']);
    expect(topologicalLevels(p)).toEqual([]);
  });
});
