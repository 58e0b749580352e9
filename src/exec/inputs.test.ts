import { describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { loadCatalog } from '../catalog/index.js';
import { literal } from '../plan/index.js';
import { askOnTerminal, describeCall } from './approval.js';
import { formatLocalDate } from './clock.js';
import { executePlan } from './execute-plan.js';
import { fakeHandlers } from './fake-handlers.js';
import { askUserOnTerminal, currentDeviceDetails, scriptedAnswers, systemInputs } from './inputs.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const q = { step: 's2', app: 'Weather', api: 'getweather', arg: 'city', prompt: 'Which city?' };

describe('input providers', () => {
  it('scripted map: step.arg beats app.api.arg beats arg beats prompt', async () => {
    expect(await scriptedAnswers({ 's2.city': 'A', 'Weather.getweather.city': 'B', city: 'C' })(q)).toBe('A');
    expect(await scriptedAnswers({ 'Weather.getweather.city': 'B', city: 'C', 'Which city?': 'D' })(q)).toBe(
      'B',
    );
    expect(await scriptedAnswers({ city: 'C', 'Which city?': 'D' })(q)).toBe('C');
    expect(await scriptedAnswers({ 'Which city?': 'D' })(q)).toBe('D');
    expect(() => scriptedAnswers({})(q)).toThrow(
      'no scripted answer for s2.city (keys tried: "s2.city", "Weather.getweather.city", "city", "Which city?")',
    );
  });

  it('scripted list: consumed in order, then an error', async () => {
    const ask = scriptedAnswers(['x', 'y']);
    expect([await ask(q), await ask(q)]).toEqual(['x', 'y']);
    expect(() => ask(q)).toThrow('no scripted answer left for s2.city ("Which city?")');
  });

  it('terminal prompt and terminal approval use the injected prompt functions', async () => {
    const messages: string[] = [];
    const ask = askUserOnTerminal({
      input: async ({ message }) => {
        messages.push(message);
        return 'Rome';
      },
    });
    expect(await ask(q)).toBe('Rome');
    const approve = askOnTerminal({
      confirm: async ({ message }) => {
        messages.push(message);
        return false;
      },
    });
    const request = {
      step: 's1',
      app: 'Payment',
      api: 'makepayment',
      description: '',
      args: { amount: '5' },
    };
    expect(await approve(request)).toEqual({ approved: false, reason: 'refused on the terminal' });
    expect(messages).toEqual(['Which city?', 'Allow transactional call Payment.makepayment(amount="5")?']);
    expect(describeCall(request)).toBe('Payment.makepayment(amount="5")');
  });

  it('system inputs: date from the clock (YYYY-MM-DD), custom format, device from os', async () => {
    const clock = { now: () => new Date(2019, 2, 7, 9, 30).getTime() };
    const sys = systemInputs({ clock });
    expect(await sys('current_date', q)).toBe('2019-03-07');
    expect(formatLocalDate(new Date(2024, 11, 31, 23, 59).getTime())).toBe('2024-12-31');
    const iso = systemInputs({
      clock: { now: () => Date.UTC(2019, 2, 7) },
      formatDate: (ms) => new Date(ms).toISOString(),
    });
    expect(await iso('current_date', q)).toBe('2019-03-07T00:00:00.000Z');
    const device = (await sys('device_details', q)) as Record<string, string>;
    expect(device).toEqual(currentDeviceDetails());
    expect(device.platform).toBe(process.platform);
    await expect(sys('shared_input', q)).rejects.toThrow(
      'the plan reads the shared input but the run was given none',
    );
  });
});

describe('executor configuration errors', () => {
  const catalog = loadCatalog('appbench');
  const plan = {
    steps: [{ id: 's1', app: 'Weather', api: 'getweather', args: { city: literal('Rome') }, outputs: [] }],
  };
  it('two handlers for one app are ambiguous', async () => {
    const { handlers } = fakeHandlers(catalog);
    const weather = handlers.find((h) => h.appId === 'Weather')!;
    await expect(executePlan(plan, { catalog, handlers: [...handlers, weather] })).rejects.toThrow(
      'two handlers registered for app "Weather" (ambiguous dispatch)',
    );
  });
  it('concurrency must be at least 1', async () => {
    await expect(executePlan(plan, { catalog, handlers: [], concurrency: 0 })).rejects.toThrow(
      'concurrency must be at least 1 (got 0)',
    );
  });
  it('a missing handler refuses the plan', async () => {
    const res = await executePlan(plan, { catalog, handlers: [] });
    expect(res.steps[0]!.error).toEqual({
      code: 'PERMISSION_DENIED',
      message: 'no handler is registered for app "Weather"',
    });
  });
});
