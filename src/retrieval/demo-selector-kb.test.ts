import { describe, expect, it } from 'vitest';
import { literal, type Plan, parsePlanText, ref } from '../plan/index.js';
import { printAppPrefixedPlan } from './demo-selector-kb.js';

describe('printAppPrefixedPlan', () => {
  it('writes App_api call names that parse back to the same plan', () => {
    const plan: Plan = {
      steps: [
        {
          id: 's1',
          app: 'Rents',
          api: 'getcarsavailable',
          args: { city: literal('Oslo') },
          outputs: ['car_type'],
        },
        { id: 's2', app: 'Rents', api: 'reservecar', args: { car_type: ref('s1', 'car_type') }, outputs: [] },
        { id: 's3', app: 'Pay', api: 'Pay_send', args: {}, outputs: ['ok'] },
      ],
    };
    const text = printAppPrefixedPlan(plan);
    expect(text).toBe(
      [
        "Rents: [car_type = Rents_getcarsavailable(#city='Oslo')]",
        'Rents: [Rents_reservecar(#car_type=car_type)]',
        'Pay: [ok = Pay_Pay_send()]',
      ].join('\n'),
    );
    expect(parsePlanText(text).plan).toEqual(plan);
  });
});
