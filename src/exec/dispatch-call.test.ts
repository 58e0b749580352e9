import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppCallContext, AppCallResult, AppHandler, ContentPart } from '../apps/index.js';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { indexCatalog, loadCatalog } from '../catalog/index.js';
import { ApiaryError } from '../shared/index.js';
import { type ApprovalRequest, approveWith, autoApprove } from './approval.js';
import { valueFits } from './call-arguments.js';
import { type CallOutcome, contentToText, describeCallError, toContent } from './call-result.js';
import { closeNames, editDistance } from './close-names.js';
import {
  type AppRegistry,
  appRegistry,
  type CallRequest,
  type DispatchContext,
  dispatchCall,
} from './dispatch-call.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const catalog = indexCatalog(loadCatalog('appbench'));

interface Recorder {
  handler: AppHandler;
  calls: Array<{ api: string; args: Record<string, unknown>; caller: string }>;
}

/** A handler that records each call it receives and answers with `respond`. */
function recorder(
  appId: string,
  respond: (args: Record<string, unknown>, ctx: AppCallContext) => Promise<AppCallResult> | AppCallResult = (
    args,
  ) => [{ ...args }],
  extra: Partial<AppHandler> = {},
): Recorder {
  const calls: Recorder['calls'] = [];
  return {
    calls,
    handler: {
      appId,
      owner: `app:${appId}`,
      async call(api, args, ctx) {
        calls.push({ api, args, caller: ctx.caller });
        return respond(args, ctx);
      },
      ...extra,
    },
  };
}

const weatherCall = (args: Record<string, unknown> = { city: 'Rome' }): CallRequest => ({
  app: 'Weather',
  api: 'getweather',
  args,
});
const payCall = (args: Record<string, unknown> = {}): CallRequest => ({
  app: 'Payment',
  api: 'makepayment',
  args: { payment_method: 'debit card', amount: '12', receiver: 'Ann', ...args },
});
const ctxWith = (apps: AppRegistry, extra: Partial<DispatchContext> = {}): DispatchContext => ({
  catalog,
  apps,
  ...extra,
});
/** The outcome without its duration (wall time varies). */
const settled = (o: CallOutcome) => {
  const { durationMs, ...rest } = o;
  expect(durationMs).toBeGreaterThanOrEqual(0);
  return rest;
};
const failure = (code: string, message: string, transactional = false, dispatched = false) => ({
  ok: false,
  error: { code, message },
  transactional,
  dispatched,
});

describe('dispatchCall: the catalog must have the app and API', () => {
  const weather = recorder('Weather');
  const ctx = ctxWith(appRegistry([weather.handler]));

  it('names close API names of the app', async () => {
    const o = await dispatchCall({ app: 'Weather', api: 'getwether', args: { city: 'Rome' } }, ctx);
    expect(settled(o)).toEqual(
      failure('UNKNOWN_API', 'app "Weather" has no API "getwether"; did you mean: getweather'),
    );
  });

  it('names close app ids, or the apps that own the API', async () => {
    const typo = await dispatchCall({ app: 'Wether', api: 'getweather', args: {} }, ctx);
    expect(typo.ok === false && typo.error.message).toBe('unknown app "Wether"; did you mean: Weather');
    const owner = await dispatchCall({ app: 'Pay', api: 'makepayment', args: {} }, ctx);
    expect(owner.ok === false && owner.error.message).toBe('unknown app "Pay"; did you mean: Payment');
  });

  it('says which app owns an API called through another app, or lists what the app has', async () => {
    const other = await dispatchCall({ app: 'Weather', api: 'makepayment', args: {} }, ctx);
    expect(other.ok === false && other.error).toEqual({
      code: 'UNKNOWN_API',
      message: 'app "Weather" has no API "makepayment" (owned by Payment.makepayment)',
    });
    const none = await dispatchCall({ app: 'Weather', api: 'xyz', args: {} }, ctx);
    expect(none.ok === false && none.error.message).toBe('app "Weather" has no API "xyz" (has: getweather)');
    expect(weather.calls).toHaveLength(0);
  });
});

describe('dispatchCall: arguments are checked against the catalog', () => {
  const weather = recorder('Weather');
  const payment = recorder('Payment');
  const ctx = ctxWith(appRegistry([weather.handler, payment.handler]), { approve: autoApprove });

  it('refuses an unknown argument, naming it and the parameters there are', async () => {
    const o = await dispatchCall(weatherCall({ city: 'Rome', town: 'Rome' }), ctx);
    expect(settled(o)).toEqual({
      ok: false,
      error: {
        code: 'INPUT_INVALID',
        message:
          'invalid arguments for Weather.getweather: town: Weather.getweather has no parameter "town" (has: city, date)',
        issues: [{ field: 'town', message: 'Weather.getweather has no parameter "town" (has: city, date)' }],
      },
      transactional: false,
      dispatched: false,
    });
  });

  it('refuses a missing required argument (an undefined value is missing)', async () => {
    const o = await dispatchCall(weatherCall({ date: '2019-03-07', city: undefined }), ctx);
    expect(o.ok === false && o.error.issues).toEqual([
      { field: 'city', message: 'required argument "city" is missing' },
    ]);
  });

  it('refuses a value outside an enum, and values that do not fit their types', async () => {
    const o = await dispatchCall(
      payCall({
        payment_method: 'cash',
        amount: 'twelve',
        receiver: { name: 'Ann' },
        private_visibility: 'no',
      }),
      ctx,
    );
    expect(o.ok === false && o.error.issues).toEqual([
      {
        field: 'payment_method',
        message: "value \"cash\" is not one of 'app balance', 'debit card', 'credit card'",
      },
      { field: 'amount', message: 'value "twelve" is not number' },
      { field: 'receiver', message: 'value {"name":"Ann"} is not string' },
      { field: 'private_visibility', message: 'value "no" is not boolean' },
    ]);
    const date = await dispatchCall(weatherCall({ city: 'Rome', date: '07/03/2019' }), ctx);
    expect(date.ok === false && date.error.issues).toEqual([
      { field: 'date', message: 'value "07/03/2019" is not date' },
    ]);
    expect(weather.calls.length + payment.calls.length).toBe(0);
  });

  it('accepts what plan validation accepts: numbers as strings, null, booleans as text', async () => {
    const o = await dispatchCall(
      payCall({ amount: '12.5', private_visibility: 'TRUE', receiver: null }),
      ctx,
    );
    expect(o.ok).toBe(true);
    expect(payment.calls.at(-1)!.args).toEqual({
      payment_method: 'debit card',
      amount: '12.5',
      receiver: null,
      private_visibility: 'TRUE',
    });
  });

  it('passes arguments on unchecked with validate: false', async () => {
    const o = await dispatchCall(weatherCall({ city: { name: 'Rome' } }), { ...ctx, validate: false });
    expect(o.ok).toBe(true);
    expect(weather.calls.at(-1)!.args).toEqual({ city: { name: 'Rome' } });
  });
});

describe('dispatchCall: permission scope', () => {
  it('refuses an app outside the grant', async () => {
    const payment = recorder('Payment');
    const o = await dispatchCall(
      payCall(),
      ctxWith(appRegistry([payment.handler]), { grant: new Set(['Weather']), approve: autoApprove }),
    );
    expect(settled(o)).toEqual(
      failure('PERMISSION_DENIED', 'app "Payment" is not granted to this run (granted: Weather)'),
    );
    expect(payment.calls).toHaveLength(0);
  });

  it('refuses a handler registered under another owner, and an app with no handler', async () => {
    let reached = 0;
    const impostor: AppHandler = {
      appId: 'Payment',
      owner: 'app:Weather',
      async call() {
        reached++;
        return { paid: true };
      },
    };
    const wrong = await dispatchCall(payCall(), ctxWith(appRegistry([impostor]), { approve: autoApprove }));
    expect(settled(wrong)).toEqual(
      failure(
        'PERMISSION_DENIED',
        'the handler for "Payment" runs as "app:Weather" but the app\'s owner is "app:Payment"',
      ),
    );
    const missing = await dispatchCall(weatherCall(), ctxWith(appRegistry([impostor])));
    expect(missing.ok === false && missing.error.message).toBe('no handler is registered for app "Weather"');
    expect(reached).toBe(0);
  });

  it('dispatches under the app owner identity', async () => {
    const weather = recorder('Weather');
    await dispatchCall(
      weatherCall(),
      ctxWith(appRegistry([weather.handler]), { grant: new Set(['Weather']) }),
    );
    expect(weather.calls).toEqual([{ api: 'getweather', args: { city: 'Rome' }, caller: 'app:Weather' }]);
  });

  it('two handlers for one app is a configuration error', () => {
    expect(() => appRegistry([recorder('Weather').handler, recorder('Weather').handler])).toThrow(
      'two handlers registered for app "Weather" (ambiguous dispatch)',
    );
  });
});

describe('dispatchCall: approval of transactional calls', () => {
  it('denies by default: the handler is never called, nothing takes effect', async () => {
    const effects: string[] = [];
    const payment = recorder('Payment', (args) => {
      effects.push(`paid ${args.amount}`);
      return { paid: true };
    });
    let dispatched = 0;
    const o = await dispatchCall(
      payCall(),
      ctxWith(appRegistry([payment.handler]), { onDispatch: () => dispatched++ }),
    );
    expect(settled(o)).toEqual(
      failure(
        'APPROVAL_DENIED',
        'transactional call Payment.makepayment not approved: transactional calls are denied for this run',
        true,
      ),
    );
    expect(payment.calls.length + effects.length + dispatched).toBe(0);
  });

  it('shows the approver the call (id, or app.api) and its arguments', async () => {
    const payment = recorder('Payment', () => ({ paid: true }));
    const seen: ApprovalRequest[] = [];
    const approve = approveWith((r) => {
      seen.push(r);
      return r.args.amount === '12';
    });
    const ctx = ctxWith(appRegistry([payment.handler]), { approve });
    const yes = await dispatchCall({ ...payCall(), id: 'step-7' }, ctx);
    const no = await dispatchCall(payCall({ amount: '99' }), ctx);
    expect(seen.map((r) => `${r.step} ${r.app}.${r.api} ${r.args.amount}`)).toEqual([
      'step-7 Payment.makepayment 12',
      'Payment.makepayment Payment.makepayment 99',
    ]);
    expect(settled(yes)).toEqual({
      ok: true,
      content: [{ type: 'json', value: { paid: true } }],
      raw: { paid: true },
      transactional: true,
    });
    expect(no.ok === false && no.error.message).toBe(
      'transactional call Payment.makepayment not approved: refused by the approver',
    );
    expect(payment.calls).toHaveLength(1);
  });

  it('counts an approver that throws as a denial', async () => {
    const payment = recorder('Payment');
    const o = await dispatchCall(
      payCall(),
      ctxWith(appRegistry([payment.handler]), {
        approve: () => {
          throw new Error('no terminal');
        },
      }),
    );
    expect(o.ok === false && o.error).toEqual({
      code: 'APPROVAL_DENIED',
      message: 'transactional call Payment.makepayment not approved: the approver failed: no terminal',
    });
    expect(payment.calls).toHaveLength(0);
  });

  it("asks for approval when the handler knows the API has side effects the catalog doesn't mark", async () => {
    const media = recorder('Media', () => ({ playing: true }), {
      hasSideEffects: (api) => api === 'playmovie',
    });
    const o = await dispatchCall(
      { app: 'Media', api: 'playmovie', args: { title: 'Up' } },
      ctxWith(appRegistry([media.handler])),
    );
    expect(o.ok === false && [o.error.code, o.transactional]).toEqual(['APPROVAL_DENIED', true]);
    const search = await dispatchCall(
      { app: 'Media', api: 'findmovies', args: { genre: 'Drama' } },
      ctxWith(appRegistry([media.handler])),
    );
    expect(search.ok && search.transactional).toBe(false);
    expect(media.calls.map((c) => c.api)).toEqual(['findmovies']);
  });
});

describe('dispatchCall: the handler call', () => {
  it('times out through the handler signal; a transactional timeout may have taken effect', async () => {
    let abortReason: unknown;
    const hang = (_args: Record<string, unknown>, ctx: AppCallContext) =>
      new Promise<AppCallResult>((_, reject) =>
        ctx.signal!.addEventListener('abort', () => {
          abortReason = ctx.signal!.reason;
          reject(new Error('aborted'));
        }),
      );
    const weather = recorder('Weather', hang);
    const o = await dispatchCall(weatherCall(), ctxWith(appRegistry([weather.handler]), { timeoutMs: 20 }));
    expect(settled(o)).toEqual(failure('TIMEOUT', 'no answer within 20 ms', false, true));
    expect((abortReason as Error).name).toBe('TimeoutError');
    const payment = recorder('Payment', () => new Promise(() => {})); // ignores its signal
    const pay = await dispatchCall(
      payCall(),
      ctxWith(appRegistry([payment.handler]), { timeoutMs: 20, approve: autoApprove }),
    );
    expect(settled(pay)).toEqual(
      failure('TIMEOUT', 'no answer within 20 ms (transactional call: it may have taken effect)', true, true),
    );
  });

  it('is not dispatched when cancelled before the call', async () => {
    const weather = recorder('Weather');
    let dispatched = 0;
    const o = await dispatchCall(
      weatherCall(),
      ctxWith(appRegistry([weather.handler]), {
        signal: AbortSignal.abort(),
        onDispatch: () => dispatched++,
      }),
    );
    expect(settled(o)).toEqual(
      failure('CANCELLED', 'Weather.getweather was cancelled before it was dispatched'),
    );
    expect(weather.calls.length + dispatched).toBe(0);
  });

  it('aborts the handler when cancelled during the call, and leaves no listener behind', async () => {
    const ctrl = new AbortController();
    let handlerSawAbort = false;
    const weather = recorder(
      'Weather',
      (_args, ctx) =>
        new Promise<AppCallResult>((_, reject) => {
          ctx.signal!.addEventListener('abort', () => {
            handlerSawAbort = ctx.signal!.reason === 'user pressed Ctrl-C';
            reject(new Error('aborted'));
          });
          setTimeout(() => ctrl.abort('user pressed Ctrl-C'), 5);
        }),
    );
    const o = await dispatchCall(
      weatherCall(),
      ctxWith(appRegistry([weather.handler]), { signal: ctrl.signal }),
    );
    expect(settled(o)).toEqual(
      failure('CANCELLED', 'Weather.getweather was cancelled during the call', false, true),
    );
    expect(handlerSawAbort).toBe(true);
    const idle = new AbortController();
    await dispatchCall(
      weatherCall(),
      ctxWith(appRegistry([recorder('Weather').handler]), { signal: idle.signal }),
    );
    expect(EventEmitter.getEventListeners(idle.signal, 'abort')).toHaveLength(0);
  });

  it('maps what the handler throws: its refusal, its input error, anything else', async () => {
    const throwing = (error: unknown) =>
      dispatchCall(
        weatherCall(),
        ctxWith(
          appRegistry([
            recorder('Weather', () => {
              throw error;
            }).handler,
          ]),
        ),
      );
    const errors = await Promise.all(
      [
        new ApiaryError('PERMISSION_DENIED', 'Weather refuses caller "x"'),
        new ApiaryError('INPUT_INVALID', 'unknown city'),
        new ApiaryError('NOT_FOUND', 'no such forecast'),
        new Error('socket hang up'),
        'a string',
      ].map(async (e) => {
        const o = await throwing(e);
        return o.ok ? undefined : [o.error, o.dispatched];
      }),
    );
    expect(errors).toEqual([
      [
        { code: 'PERMISSION_DENIED', message: 'Weather refuses caller "x"', appCode: 'PERMISSION_DENIED' },
        true,
      ],
      [{ code: 'INPUT_INVALID', message: 'unknown city', appCode: 'INPUT_INVALID' }, true],
      [{ code: 'TOOL_FAILED', message: 'no such forecast', appCode: 'NOT_FOUND' }, true],
      [{ code: 'TOOL_FAILED', message: 'socket hang up' }, true],
      [{ code: 'TOOL_FAILED', message: 'a string' }, true],
    ]);
  });

  it('refuses a result that is neither rows nor a record', async () => {
    const weather = recorder('Weather', () => null as unknown as AppCallResult);
    const o = await dispatchCall(weatherCall(), ctxWith(appRegistry([weather.handler])));
    expect(o.ok === false && o.error).toEqual({
      code: 'TOOL_FAILED',
      message: 'Weather.getweather returned null, not rows or a record',
    });
  });

  it('turns rows, records and content parts into content', async () => {
    const parts: ContentPart[] = [
      { type: 'text', text: 'Plotted the forecast.' },
      { type: 'image', path: '/tmp/forecast.png', mediaType: 'image/png' },
    ];
    const results: AppCallResult[] = [
      [{ city: 'Rome', temperature: '20' }],
      { city: 'Rome' },
      { content: parts },
    ];
    const contents: unknown[] = [];
    for (const result of results) {
      const o = await dispatchCall(
        weatherCall(),
        ctxWith(appRegistry([recorder('Weather', () => result).handler])),
      );
      contents.push(o.ok && [o.content, o.raw === result]);
    }
    expect(contents).toEqual([
      [[{ type: 'rows', rows: [{ city: 'Rome', temperature: '20' }] }], true],
      [[{ type: 'json', value: { city: 'Rome' } }], true],
      [parts, true],
    ]);
  });

  it('measures the duration on the injected clock; onDispatch runs once, just before the handler', async () => {
    let now = 1000;
    const order: string[] = [];
    const weather = recorder('Weather', () => {
      order.push('handler');
      now += 250;
      return [];
    });
    const o = await dispatchCall(
      weatherCall(),
      ctxWith(appRegistry([weather.handler]), {
        clock: { now: () => now, sleep: async () => {} },
        onDispatch: () => order.push('dispatch'),
      }),
    );
    expect(o.durationMs).toBe(250);
    expect(order).toEqual(['dispatch', 'handler']);
  });

  it('never throws, whatever the arguments (property)', async () => {
    const weather = recorder('Weather');
    const payment = recorder('Payment', () => ({ paid: true }));
    const ctx = ctxWith(appRegistry([weather.handler, payment.handler]), { approve: autoApprove });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('Weather.getweather', 'Payment.makepayment', 'Weather.nope', 'Nope.getweather'),
        fc.dictionary(fc.string(), fc.anything()),
        async (target, args) => {
          const [app, api] = target.split('.') as [string, string];
          const o = await dispatchCall({ app, api, args }, ctx);
          expect(typeof o.ok).toBe('boolean');
          if (!o.ok) expect(o.error.message.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('content as text', () => {
  const row = (i: number) => ({ id: i, name: `r${i}` });

  it('renders every part kind compactly, one part per line', () => {
    expect(
      contentToText([
        { type: 'text', text: 'Found 2 forecasts.' },
        { type: 'json', value: { ok: true, n: [1, 2] } },
        { type: 'rows', rows: [row(1), row(2)] },
        { type: 'rows', rows: [] },
        { type: 'image', path: '/tmp/a.png', mediaType: 'image/png' },
        { type: 'file', path: '/tmp/a.csv' },
      ]),
    ).toBe(
      [
        'Found 2 forecasts.',
        '{"ok":true,"n":[1,2]}',
        '{"id":1,"name":"r1"}',
        '{"id":2,"name":"r2"}',
        '(no rows)',
        '[image](/tmp/a.png)',
        '[file](/tmp/a.csv)',
      ].join('\n'),
    );
  });

  it('shows at most maxRows rows (default 10), then how many more', () => {
    const twelve = Array.from({ length: 12 }, (_, i) => row(i + 1));
    const text = contentToText([{ type: 'rows', rows: twelve }]).split('\n');
    expect(text).toHaveLength(11);
    expect(text[9]).toBe('{"id":10,"name":"r10"}');
    expect(text[10]).toBe('… and 2 more rows');
    expect(contentToText([{ type: 'rows', rows: [row(1), row(2)] }], { maxRows: 1 })).toBe(
      '{"id":1,"name":"r1"}\n… and 1 more row',
    );
  });

  it('converts results and errors', () => {
    expect(toContent({ content: 'not parts' })).toEqual([{ type: 'json', value: { content: 'not parts' } }]);
    expect(toContent({ content: [{ type: 'audio' }] })).toEqual([
      { type: 'json', value: { content: [{ type: 'audio' }] } },
    ]);
    expect(describeCallError({ code: 'TIMEOUT', message: 'no answer within 20 ms' })).toBe(
      'TIMEOUT: no answer within 20 ms',
    );
  });
});

describe('helpers', () => {
  it('close names: typos, case, contained names; closest first, at most 3', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closeNames('getwether', ['getweather', 'getride', 'findevents'])).toEqual(['getweather']);
    expect(closeNames('WEATHER', ['Weather', 'Heather', 'Leather', 'Feather', 'Rents'])).toEqual([
      'Weather',
      'Feather',
      'Heather',
    ]);
    expect(closeNames('pay', ['Payment', 'makepayment', 'Hotels'])).toEqual(['Payment', 'makepayment']);
    expect(closeNames('xyz', ['getweather'])).toEqual([]);
  });

  it('value fits: scalars as in plan validation, lists item by item, records only for entities/any', () => {
    const str = { kind: 'primitive', name: 'string' } as const;
    const int = { kind: 'primitive', name: 'integer' } as const;
    expect(valueFits('3', int)).toBe(true);
    expect(valueFits(3.5, int)).toBe(false);
    expect(valueFits(['1', 2], { kind: 'array', items: int })).toBe(true);
    expect(valueFits(['1', 'x'], { kind: 'array', items: int })).toBe(false);
    expect(valueFits(['a'], str)).toBe(false);
    expect(valueFits({ a: 1 }, { kind: 'entity', name: 'WFContact' })).toBe(true);
    expect(valueFits({ a: 1 }, { kind: 'primitive', name: 'any' })).toBe(true);
    expect(valueFits(10n, str)).toBe(false);
  });
});
