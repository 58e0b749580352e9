import { describe, expect, it } from 'vitest';
import { createSgdApps, listSideEffects } from '../benchmarks/appbench/apps/sgd-apps.js';
import { openBundledSgdDatabase } from '../benchmarks/appbench/apps/sgd-database.js';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { loadCatalog } from '../catalog/index.js';
import { literal, type Plan, ref, validatePlan } from '../plan/index.js';
import { autoApprove } from './approval.js';
import { executePlan } from './execute-plan.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

// The AppBench catalog accepts the slots of every SGD version of a service and a search's result
// slots (docs/catalogs.md "AppBench arguments"); the simulated apps run on the bundled SGD subset.
const catalog = loadCatalog('appbench');

const findDynasty: Plan['steps'][number] = {
  id: 's1',
  app: 'Events',
  api: 'findevents',
  args: {
    event_type: literal('Theater'),
    city: literal('Chicago'),
    // A result slot of Events_3.FindEvents: filters the rows.
    event_name: literal('Dynasty'),
    // A slot of Events_1.FindEvents only: accepted, Events_3's rows carry no subcategory.
    subcategory: literal('Play'),
  },
  outputs: ['event_name', 'date', 'city', 'venue'],
};

describe('a plan using arguments derived from other SGD versions and result slots', () => {
  it('validates and executes on the simulated apps, the result slot filtering the rows', async () => {
    const plan: Plan = {
      steps: [
        findDynasty,
        {
          id: 's2',
          app: 'Events',
          api: 'buyeventtickets',
          args: {
            event_name: ref('s1', 'event_name'),
            date: ref('s1', 'date'),
            city: ref('s1', 'city'),
            number_of_tickets: literal('2'),
            // Events_1.BuyEventTickets' name for the same count.
            number_of_seats: literal('2'),
          },
          outputs: ['venue', 'time'],
        },
      ],
    };
    expect(validatePlan(plan, catalog)).toEqual([]);
    const { db } = openBundledSgdDatabase();
    const res = await executePlan(plan, {
      catalog,
      handlers: createSgdApps({ db, catalog }),
      approve: autoApprove,
      retries: 0,
    });
    expect(res.status).toBe('succeeded');
    // The bundled subset has two Chicago Dynasty rows (2019-03-02 and 2019-03-05) among 20 Chicago shows.
    expect(
      (res.steps[0]!.result as Array<Record<string, string>>).map((r) => [r.event_name, r.date]),
    ).toEqual([
      ['Dynasty', '2019-03-02'],
      ['Dynasty', '2019-03-05'],
    ]);
    expect(res.outputs.s2).toEqual({ venue: 'The Mission Theater', time: '17:30' });
    expect(listSideEffects(db).map((e) => e.args)).toEqual([
      {
        event_name: 'Dynasty',
        date: '2019-03-02',
        city: 'Chicago',
        number_of_tickets: '2',
        number_of_seats: '2',
      },
    ]);
  });

  it('still refuses an argument no version of the service declares', () => {
    const plan: Plan = { steps: [{ ...findDynasty, args: { ...findDynasty.args, mood: literal('happy') } }] };
    expect(validatePlan(plan, catalog).map((i) => [i.code, i.step, i.field])).toEqual([
      ['unknown-argument', 's1', 'mood'],
    ]);
  });
});
