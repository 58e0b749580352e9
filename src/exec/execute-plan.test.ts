import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { AppCallContext, AppHandler } from '../apps/index.js';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { loadCatalog } from '../catalog/index.js';
import { ask, literal, type Plan, ref, type Step, system } from '../plan/index.js';
import { ApiaryError } from '../shared/index.js';
import { type ApprovalRequest, approveWith, autoApprove } from './approval.js';
import { type Clock, sleepFor } from './clock.js';
import { executePlan } from './execute-plan.js';
import { fakeHandlers } from './fake-handlers.js';
import { scriptedAnswers, systemInputs } from './inputs.js';
import { memoryTrace } from './trace.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const catalog = loadCatalog('appbench');

const step = (id: string, app: string, api: string, args: Step['args'], outputs: string[] = []): Step => ({
  id,
  app,
  api,
  args,
  outputs,
});
const weather = (id: string, city = 'Warsaw') =>
  step(id, 'Weather', 'getweather', { city: literal(city) }, ['temperature', 'city']);

/** A clock whose time only moves when told; sleeps are recorded and return at once. */
function fakeClock(start = Date.parse('2019-03-07T12:00:00Z')) {
  let now = start;
  const sleeps: number[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
  return { clock, sleeps };
}

describe('executePlan: data flow', () => {
  it('passes the first row of a search into the arguments that reference it', async () => {
    const { handlers, calls } = fakeHandlers(catalog, {
      respond: (_app, api, args) =>
        api === 'findrestaurants'
          ? [
              { restaurant_name: 'Stone Korean Kitchen', location: 'San Francisco', rating: '4.5' },
              { restaurant_name: 'Second Choice', location: 'Oakland', rating: '4.0' },
            ]
          : { ...args, phone_number: '415-555-0100' },
    });
    const plan: Plan = {
      steps: [
        step(
          's1',
          'Restaurants',
          'findrestaurants',
          { category: literal('Korean'), location: literal('San Francisco') },
          ['restaurant_name', 'location'],
        ),
        step(
          's2',
          'Restaurants',
          'reserverestaurant',
          {
            restaurant_name: ref('s1', 'restaurant_name'),
            location: ref('s1', 'location'),
            time: literal('13:30'),
            number_of_seats: literal('3'),
          },
          ['phone_number', 'number_of_seats'],
        ),
        step(
          's3',
          'Rents',
          'getride',
          {
            destination: literal('4 Embarcadero Center'),
            number_of_seats: ref('s2', 'number_of_seats'),
            ride_type: literal('Luxury'),
          },
          ['ride_fare'],
        ),
      ],
    };
    const res = await executePlan(plan, { catalog, handlers, approve: autoApprove });
    expect(res.status).toBe('succeeded');
    expect(calls.map((c) => c.api)).toEqual(['findrestaurants', 'reserverestaurant', 'getride']);
    expect(calls[1]!.args).toEqual({
      restaurant_name: 'Stone Korean Kitchen',
      location: 'San Francisco',
      time: '13:30',
      number_of_seats: '3',
    });
    expect(calls[2]!.args.number_of_seats).toBe('3');
    expect(res.outputs.s1).toEqual({ restaurant_name: 'Stone Korean Kitchen', location: 'San Francisco' });
    expect(res.outputs.s2).toEqual({ phone_number: '415-555-0100', number_of_seats: '3' });
    // getride's record lacks ride_fare and had no such argument: the output is simply absent.
    expect(res.outputs.s3).toEqual({});
    expect(calls.every((c) => c.caller === `app:${c.app}`)).toBe(true);
  });

  it('fails a step whose producer returned no row, without calling it; other branches go on', async () => {
    const { handlers, calls } = fakeHandlers(catalog, {
      respond: (_app, api, args) => (api === 'findrestaurants' ? [] : [{ ...args, temperature: '20' }]),
    });
    const plan: Plan = {
      steps: [
        step(
          's1',
          'Restaurants',
          'findrestaurants',
          { category: literal('Thai'), location: literal('Nowhere') },
          ['restaurant_name'],
        ),
        step(
          's2',
          'Restaurants',
          'reserverestaurant',
          {
            restaurant_name: ref('s1', 'restaurant_name'),
            location: literal('Nowhere'),
            time: literal('19:00'),
          },
          [],
        ),
        weather('s3'),
      ],
    };
    const res = await executePlan(plan, { catalog, handlers, approve: autoApprove });
    expect(res.status).toBe('failed');
    expect(res.steps.map((s) => s.status)).toEqual(['succeeded', 'failed', 'succeeded']);
    expect(res.steps[1]!.error).toEqual({
      code: 'DEPENDENCY_FAILED',
      message:
        'argument "restaurant_name" needs s1.restaurant_name: s1 (Restaurants.findrestaurants) returned no row',
    });
    expect(res.steps[1]!.attempts).toBe(0);
    expect(calls.map((c) => c.api)).toEqual(['findrestaurants', 'getweather']);
  });

  it('refuses an invalid plan as a whole: nothing runs, every step says why', async () => {
    const { handlers, calls } = fakeHandlers(catalog);
    const trace = memoryTrace();
    const plan: Plan = {
      steps: [weather('s1'), step('s2', 'Weather', 'getweather', { town: literal('Rome') }, [])],
    };
    const res = await executePlan(plan, { catalog, handlers, trace });
    expect(res.status).toBe('refused');
    expect(res.issues.map((i) => i.code).sort()).toEqual(['missing-argument', 'unknown-argument']);
    expect(res.steps.map((s) => [s.status, s.error?.code])).toEqual([
      ['refused', 'PLAN_INVALID'],
      ['refused', 'PLAN_INVALID'],
    ]);
    expect(res.steps[1]!.error!.message).toContain('required argument "city" is missing');
    expect(calls).toHaveLength(0);
    expect(trace.events.map((e) => e.event)).toEqual(['refused', 'refused']);
  });
});

describe('executePlan: scheduling', () => {
  it('starts a step as soon as its own dependencies finish (no level barrier)', async () => {
    const { handlers } = fakeHandlers(catalog, {
      latencyMs: (_app, api) => (api === 'findattractions' ? 150 : 10),
    });
    const trace = memoryTrace();
    const plan: Plan = {
      steps: [
        step(
          'a',
          'Rents',
          'getcarsavailable',
          {
            city: literal('Warsaw'),
            start_date: literal('2019-03-07'),
            pickup_time: literal('10:00'),
            end_date: literal('2019-03-09'),
          },
          ['city'],
        ),
        step('slow', 'Travel', 'findattractions', { location: literal('Rome') }, []),
        step('c', 'Weather', 'getweather', { city: ref('a', 'city') }, []),
      ],
    };
    const res = await executePlan(plan, { catalog, handlers, trace });
    expect(res.status).toBe('succeeded');
    const order = trace.events.map((e) => `${e.event}:${e.step}`);
    // Level-by-level execution would start c only after the slow level-0 step ends.
    expect(order.indexOf('start:c')).toBeLessThan(order.indexOf('end:slow'));
    expect(order.indexOf('start:c')).toBeGreaterThan(order.indexOf('end:a'));
  });

  it('never has more than `concurrency` calls in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const handler: AppHandler = {
      appId: 'Weather',
      owner: 'app:Weather',
      async call(_api, args, ctx: AppCallContext) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await sleepFor(20, ctx.signal);
        inFlight--;
        return [{ ...args, temperature: '10' }];
      },
    };
    const plan: Plan = { steps: ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => weather(id, id)) };
    const res = await executePlan(plan, { catalog, handlers: [handler], concurrency: 2 });
    expect(res.status).toBe('succeeded');
    expect(peak).toBe(2);
    const unlimited = await executePlan(plan, { catalog, handlers: [handler], concurrency: Infinity });
    expect(unlimited.status).toBe('succeeded');
    expect(peak).toBe(6);
  });

  it('times out a call through its AbortSignal', async () => {
    let sawAbort = false;
    const handler: AppHandler = {
      appId: 'Weather',
      owner: 'app:Weather',
      call: (_api, _args, ctx) =>
        new Promise((_, reject) =>
          ctx.signal?.addEventListener('abort', () => {
            sawAbort = true;
            reject(new Error('aborted'));
          }),
        ),
    };
    const res = await executePlan(
      { steps: [weather('s1')] },
      {
        catalog,
        handlers: [handler],
        stepTimeoutMs: 30,
        retries: 0,
      },
    );
    expect(res.steps[0]!.status).toBe('failed');
    expect(res.steps[0]!.error).toEqual({ code: 'TIMEOUT', message: 'no answer within 30 ms' });
    expect(sawAbort).toBe(true);
  });

  it('times out a handler that ignores the signal', async () => {
    const handler: AppHandler = { appId: 'Weather', owner: 'app:Weather', call: () => new Promise(() => {}) };
    const res = await executePlan(
      { steps: [weather('s1')] },
      {
        catalog,
        handlers: [handler],
        stepTimeoutMs: 20,
        retries: 0,
      },
    );
    expect(res.steps[0]!.error?.code).toBe('TIMEOUT');
  });

  it('retries non-transactional calls with doubling backoff, never transactional ones', async () => {
    const { clock, sleeps } = fakeClock();
    let weatherCalls = 0;
    let payCalls = 0;
    const handlers: AppHandler[] = [
      {
        appId: 'Weather',
        owner: 'app:Weather',
        async call(_api, args) {
          weatherCalls++;
          if (weatherCalls < 3) throw new Error(`flaky ${weatherCalls}`);
          return [{ ...args, temperature: '12' }];
        },
      },
      {
        appId: 'Payment',
        owner: 'app:Payment',
        async call() {
          payCalls++;
          throw new Error('gateway down');
        },
      },
    ];
    const trace = memoryTrace();
    const plan: Plan = {
      steps: [
        weather('w'),
        step('p', 'Payment', 'makepayment', {
          payment_method: literal('debit card'),
          amount: literal('20'),
          receiver: literal('Ann'),
        }),
      ],
    };
    const res = await executePlan(plan, {
      catalog,
      handlers,
      approve: autoApprove,
      clock,
      retries: 2,
      retryDelayMs: 100,
      trace,
    });
    expect(res.steps.map((s) => [s.id, s.status, s.attempts])).toEqual([
      ['w', 'succeeded', 3],
      ['p', 'failed', 1],
    ]);
    expect(res.steps[1]!.error).toEqual({ code: 'CALL_FAILED', message: 'gateway down' });
    expect(sleeps).toEqual([100, 200]);
    expect(payCalls).toBe(1);
    const w = trace.events.filter((e) => e.step === 'w').map((e) => `${e.event}#${e.attempt}`);
    expect(w).toEqual(['start#1', 'error#1', 'start#2', 'error#2', 'start#3', 'end#3']);
  });

  it('does not retry a call the app refused (permanent error)', async () => {
    let n = 0;
    const handler: AppHandler = {
      appId: 'Weather',
      owner: 'app:Weather',
      async call() {
        n++;
        throw new ApiaryError('INPUT_INVALID', 'unknown city');
      },
    };
    const res = await executePlan({ steps: [weather('s1')] }, { catalog, handlers: [handler], retries: 3 });
    expect(n).toBe(1);
    expect(res.steps[0]!.error).toEqual({ code: 'INPUT_INVALID', message: 'unknown city' });
  });

  it('cancels the run: the running call is aborted, pending steps end cancelled', async () => {
    const { handlers, calls } = fakeHandlers(catalog, { latencyMs: 5_000 });
    const trace = memoryTrace();
    const ctrl = new AbortController();
    const plan: Plan = {
      steps: [weather('s1'), step('s2', 'Travel', 'findattractions', { location: ref('s1', 'city') }, [])],
    };
    setTimeout(() => ctrl.abort(), 30);
    const t = Date.now();
    const res = await executePlan(plan, { catalog, handlers, signal: ctrl.signal, trace });
    expect(Date.now() - t).toBeLessThan(2_000);
    expect(res.status).toBe('cancelled');
    expect(res.steps.map((s) => [s.status, s.error?.code])).toEqual([
      ['cancelled', 'CANCELLED'],
      ['cancelled', 'CANCELLED'],
    ]);
    expect(calls.map((c) => c.api)).toEqual(['getweather']);
    expect(trace.events.map((e) => `${e.event}:${e.step}`)).toEqual(['start:s1', 'interrupted:s1']);
  });
});

describe('executePlan: user and system inputs', () => {
  const plan: Plan = {
    steps: [
      step('s1', 'Weather', 'getweather', { city: ask('Which city?'), date: system('current_date') }, []),
      step('s2', 'Travel', 'findattractions', { location: ask() }, []),
      step('s3', 'Media', 'findmovies', { genre: system('clipboard'), starring: system('shared_input') }, []),
    ],
  };

  it('answers from a scripted map and injectable system sources', async () => {
    const { handlers, calls } = fakeHandlers(catalog);
    const { clock } = fakeClock(Date.parse('2019-03-07T12:00:00Z'));
    const res = await executePlan(plan, {
      catalog,
      handlers,
      clock,
      concurrency: 1,
      inputs: {
        ask: scriptedAnswers({ 'Which city?': 'Paris', 's2.location': 'Rome' }),
        system: systemInputs({ clock, clipboard: () => 'Comedy', sharedInput: 'Ann Lee' }),
      },
    });
    expect(res.status).toBe('succeeded');
    expect(calls.map((c) => c.args)).toEqual([
      { city: 'Paris', date: '2019-03-07' },
      { location: 'Rome' },
      { genre: 'Comedy', starring: 'Ann Lee' },
    ]);
  });

  it('answers from a list in question order, or a callback that sees the question', async () => {
    const { handlers, calls } = fakeHandlers(catalog);
    const seen: string[] = [];
    const common = { catalog, handlers, concurrency: 1 };
    const system = systemInputs({ clipboard: () => 'Drama', sharedInput: ['a.txt'] });
    await executePlan(plan, { ...common, inputs: { ask: scriptedAnswers(['Oslo', 'Bergen']), system } });
    await executePlan(plan, {
      ...common,
      inputs: {
        ask: (q) => {
          seen.push(`${q.step}.${q.arg}: ${q.prompt}`);
          return q.arg.toUpperCase();
        },
        system,
      },
    });
    expect(calls.map((c) => Object.values(c.args)[0])).toEqual([
      'Oslo',
      'Bergen',
      'Drama',
      'CITY',
      'LOCATION',
      'Drama',
    ]);
    expect(calls[2]!.args.starring).toEqual(['a.txt']);
    expect(seen).toEqual(['s1.city: Which city?', 's2.location: Travel.findattractions: location?']);
  });

  it('fails only the steps whose input is unavailable', async () => {
    const { handlers, calls } = fakeHandlers(catalog);
    const res = await executePlan(plan, {
      catalog,
      handlers,
      inputs: { system: systemInputs({ clipboard: () => 'Drama' }) },
    });
    expect(res.steps.map((s) => s.error?.message)).toEqual([
      'could not get the answer to argument "city": the run has no answer provider for questions to the user',
      'could not get the answer to argument "location": the run has no answer provider for questions to the user',
      'could not get system input "shared_input" for argument "starring": the plan reads the shared input but the run was given none',
    ]);
    expect(res.steps.every((s) => s.error?.code === 'INPUT_UNAVAILABLE')).toBe(true);
    expect(calls).toHaveLength(0);
  });

  it('reports device details from an injectable source', async () => {
    const { handlers, calls } = fakeHandlers(catalog);
    await executePlan(
      { steps: [step('s1', 'Media', 'findmovies', { genre: system('device_details') }, [])] },
      {
        catalog,
        handlers,
        inputs: { system: systemInputs({ device: () => ({ platform: 'linux', hostname: 'box' }) }) },
      },
    );
    expect(calls[0]!.args.genre).toEqual({ platform: 'linux', hostname: 'box' });
  });
});

describe('executePlan: approvals', () => {
  it('shows the approver the resolved arguments of each transactional call', async () => {
    const { handlers, calls } = fakeHandlers(catalog);
    const asked: ApprovalRequest[] = [];
    const plan: Plan = {
      steps: [
        step('s1', 'Payment', 'requestpayment', { receiver: literal('Ann'), amount: literal('15') }, []),
        step('s2', 'Payment', 'makepayment', {
          payment_method: literal('debit card'),
          amount: literal('99'),
          receiver: literal('Bob'),
        }),
      ],
    };
    const res = await executePlan(plan, {
      catalog,
      handlers,
      approve: approveWith((r) => {
        asked.push(r);
        return r.args.amount === '15';
      }),
    });
    expect(asked.map((r) => `${r.app}.${r.api} ${JSON.stringify(r.args)}`)).toEqual([
      'Payment.requestpayment {"receiver":"Ann","amount":"15"}',
      'Payment.makepayment {"payment_method":"debit card","amount":"99","receiver":"Bob"}',
    ]);
    expect(res.steps.map((s) => s.status)).toEqual(['succeeded', 'refused']);
    expect(res.steps[1]!.error).toEqual({
      code: 'PERMISSION_DENIED',
      message: 'transactional call Payment.makepayment not approved: refused by the approver',
    });
    expect(calls.map((c) => c.api)).toEqual(['requestpayment']);
  });
});

describe('executePlan: resume from a trace', () => {
  const plan: Plan = {
    steps: [
      step(
        'pay',
        'Payment',
        'makepayment',
        {
          payment_method: literal('debit card'),
          amount: literal('20'),
          receiver: ask('Who?'),
        },
        ['receiver'],
      ),
      step('w', 'Weather', 'getweather', { city: literal('Rome') }, ['city']),
      step('t', 'Travel', 'findattractions', { location: ref('w', 'city') }, []),
    ],
  };

  it('reuses finished calls (no second payment, no second question) and re-runs the rest', async () => {
    let failTravel = true;
    const { handlers, calls } = fakeHandlers(catalog, {
      respond: (_app, api, args) => {
        if (api === 'findattractions' && failTravel) throw new ApiaryError('INPUT_INVALID', 'try later');
        return [{ ...args }];
      },
    });
    const trace = memoryTrace();
    let questions = 0;
    const inputs = {
      ask: () => {
        questions++;
        return 'Ann';
      },
    };
    const first = await executePlan(plan, {
      catalog,
      handlers,
      approve: autoApprove,
      trace,
      inputs,
      runId: 'r1',
    });
    expect(first.steps.map((s) => s.status)).toEqual(['succeeded', 'succeeded', 'failed']);
    failTravel = false;
    const second = await executePlan(plan, {
      catalog,
      handlers,
      approve: autoApprove,
      trace,
      inputs,
      resume: { runId: 'r1', events: trace.events },
    });
    expect(second.status).toBe('succeeded');
    expect(second.steps.map((s) => [s.id, s.resumed ?? false])).toEqual([
      ['pay', true],
      ['w', true],
      ['t', false],
    ]);
    expect(second.outputs.pay).toEqual({ receiver: 'Ann' });
    expect(calls.map((c) => c.api).sort()).toEqual([
      'findattractions',
      'findattractions',
      'getweather',
      'makepayment',
    ]);
    expect(questions).toBe(1);
  });

  it('re-runs a finished step whose inputs changed', async () => {
    const { handlers, calls } = fakeHandlers(catalog);
    const trace = memoryTrace();
    const one = (city: string): Plan => ({ steps: [weather('w', city)] });
    await executePlan(one('Rome'), { catalog, handlers, trace, runId: 'r1' });
    const res = await executePlan(one('Oslo'), {
      catalog,
      handlers,
      resume: { runId: 'r1', events: trace.events },
    });
    expect(res.steps[0]!.resumed).toBeUndefined();
    expect(calls.map((c) => c.args.city)).toEqual(['Rome', 'Oslo']);
  });

  it('refuses to repeat a transactional call whose earlier attempt never finished', async () => {
    const { handlers, calls } = fakeHandlers(catalog);
    const events = [
      {
        event: 'start' as const,
        run: 'r1',
        time: '2019-03-07T12:00:00.000Z',
        step: 'pay',
        app: 'Payment',
        api: 'makepayment',
        attempt: 1,
      },
      {
        event: 'interrupted' as const,
        run: 'r1',
        time: '2019-03-07T12:00:01.000Z',
        step: 'pay',
        app: 'Payment',
        api: 'makepayment',
        attempt: 1,
      },
    ];
    const res = await executePlan(plan, {
      catalog,
      handlers,
      approve: autoApprove,
      inputs: { ask: () => 'Ann' },
      resume: { runId: 'r1', events },
    });
    expect(res.steps[0]!.status).toBe('refused');
    expect(res.steps[0]!.error!.message).toBe(
      'an earlier attempt of transactional call Payment.makepayment (run r1) never finished, so whether it took effect is unknown; it is not repeated on resume',
    );
    expect(calls.map((c) => c.api)).toEqual(['getweather', 'findattractions']);
  });
});

describe('executePlan over dispatchCall', () => {
  it('gives each step its result as content parts; content results feed named outputs', async () => {
    const { handlers } = fakeHandlers(catalog, {
      respond: (_app, api, args) =>
        api === 'getweather'
          ? {
              content: [
                { type: 'image', path: '/tmp/forecast.png', mediaType: 'image/png' },
                { type: 'json', value: { city: 'Oslo', temperature: '-3' } },
              ],
            }
          : [{ ...args, attraction_name: 'Vigeland Park' }],
    });
    const plan: Plan = {
      steps: [
        weather('w', 'Oslo'),
        step('t', 'Travel', 'findattractions', { location: ref('w', 'city') }, []),
      ],
    };
    const res = await executePlan(plan, { catalog, handlers });
    expect(res.status).toBe('succeeded');
    expect(res.outputs.w).toEqual({ temperature: '-3', city: 'Oslo' });
    expect(res.steps[0]!.content).toEqual([
      { type: 'image', path: '/tmp/forecast.png', mediaType: 'image/png' },
      { type: 'json', value: { city: 'Oslo', temperature: '-3' } },
    ]);
    expect(res.steps[1]!.content).toEqual([
      { type: 'rows', rows: [{ location: 'Oslo', attraction_name: 'Vigeland Park' }] },
    ]);
  });

  it("puts one listener on the caller's signal however many steps run at once, and removes it", async () => {
    const ctrl = new AbortController();
    let peakListeners = 0;
    const { handlers } = fakeHandlers(catalog, {
      latencyMs: 5,
      respond: (_app, _api, args) => {
        peakListeners = Math.max(peakListeners, EventEmitter.getEventListeners(ctrl.signal, 'abort').length);
        return [{ ...args }];
      },
    });
    const plan: Plan = { steps: Array.from({ length: 40 }, (_, i) => weather(`w${i}`, `city ${i}`)) };
    const res = await executePlan(plan, { catalog, handlers, signal: ctrl.signal, concurrency: Infinity });
    expect(res.status).toBe('succeeded');
    expect(peakListeners).toBe(1);
    expect(EventEmitter.getEventListeners(ctrl.signal, 'abort')).toHaveLength(0);
  });
});
