import { describe, expect, it } from 'vitest';
import { PlanParseError } from './plan-parse-error.js';
import { parsePlanText, printPlanText, withPositionalIds } from './plan-text.js';
import type { Plan } from './schema.js';

describe('MetaBench call-list text', () => {
  it('parses app lines, App_api names, literals, references and apostrophes', () => {
    const text = [
      "Rents: [car_type, city = Rents_getcarsavailable(#city='Warsaw', #start_date='2019-03-07')]",
      "Restaurants: [restaurant_name = findrestaurants(#location=city, #restaurant_name='Mcdonald's', #seats=2, #ok=True)]",
    ].join('\n');
    const { plan, skipped } = parsePlanText(text);
    expect(skipped).toEqual([]);
    expect(plan).toEqual({
      steps: [
        {
          id: 's1',
          app: 'Rents',
          api: 'getcarsavailable',
          outputs: ['car_type', 'city'],
          args: {
            city: { kind: 'literal', value: 'Warsaw' },
            start_date: { kind: 'literal', value: '2019-03-07' },
          },
        },
        {
          id: 's2',
          app: 'Restaurants',
          api: 'findrestaurants',
          outputs: ['restaurant_name'],
          args: {
            location: { kind: 'ref', step: 's1', output: 'city' },
            restaurant_name: { kind: 'literal', value: "Mcdonald's" },
            seats: { kind: 'literal', value: 2 },
            ok: { kind: 'literal', value: true },
          },
        },
      ],
    });
  });

  it('references resolve to the latest earlier producer; sK.name picks another', () => {
    const text = ['A: [x = f(#a=1)]', 'A: [x = g(#a=1)]', 'A: [y = h(#p=x, #q=s1.x)]'].join('\n');
    const step = parsePlanText(text).plan.steps[2]!;
    expect(step.args).toEqual({
      p: { kind: 'ref', step: 's2', output: 'x' },
      q: { kind: 'ref', step: 's1', output: 'x' },
    });
  });

  it('ask and system inputs', () => {
    const { plan } = parsePlanText(
      "Notes: [n = save(#text=$clipboard, #title=?'Which title?', #when=$current_date, #x=?)]",
    );
    expect(plan.steps[0]!.args).toEqual({
      text: { kind: 'system', source: 'clipboard' },
      title: { kind: 'ask', prompt: 'Which title?' },
      when: { kind: 'system', source: 'current_date' },
      x: { kind: 'ask' },
    });
  });

  it('gold strings without an app use appOf; a dangling name stays null', () => {
    const { plan } = parsePlanText("a, b = findbus(#from_city=from_city, #to_city='LA')", {
      appOf: () => 'Buses',
    });
    expect(plan.steps[0]).toMatchObject({
      app: 'Buses',
      args: { from_city: { kind: 'ref', step: null, output: 'from_city' } },
    });
  });

  it('prints the canonical form and re-parses to an equal plan', () => {
    const plan: Plan = {
      steps: [
        {
          id: 'find',
          app: 'Rents',
          api: 'getcarsavailable',
          outputs: ['car_type'],
          args: { city: { kind: 'literal', value: "O'Hare \\ T1" } },
        },
        {
          id: 'book',
          app: 'Rents',
          api: 'reservecar',
          outputs: [],
          args: {
            car_type: { kind: 'ref', step: 'find', output: 'car_type' },
            n: { kind: 'literal', value: null },
          },
        },
      ],
    };
    const text = printPlanText(plan);
    expect(text).toBe(
      "Rents: [car_type = getcarsavailable(#city='O\\'Hare \\\\ T1')]\nRents: [reservecar(#car_type=car_type, #n=None)]",
    );
    expect(parsePlanText(text).plan).toEqual(withPositionalIds(plan));
  });

  it('errors carry source, line and column', () => {
    const bad = "A: [x = f(#a='1')]\nA: [y = g(#a='unterminated)]";
    try {
      parsePlanText(bad, { source: 'p.txt' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PlanParseError);
      expect((e as PlanParseError).line).toBe(2);
      expect((e as Error).message).toMatch(/^p\.txt:2:\d+: unterminated quoted value/);
    }
    expect(() => parsePlanText("A: [x = f(#a='1', #a='2')]")).toThrowError(/given twice/);
    expect(() => parsePlanText('just chatter')).toThrowError(/expected a call/);
    expect(() => parsePlanText("x = f(#a='1')")).toThrowError(/no app for call "f"/);
    expect(() => parsePlanText('A: [x = f(#a=$nope)]')).toThrowError(/unknown system input/);
  });

  it('lenient mode keeps good lines and reports skipped ones', () => {
    const { plan, skipped } = parsePlanText("Sure! Here is the plan:\nA: [x = f(#a='1')]\nDone.", {
      lenient: true,
    });
    expect(plan.steps).toHaveLength(1);
    expect(skipped.map((s) => s.line)).toEqual([1, 3]);
  });
});
