import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractPlanLines } from './extract-plan-lines.js';

const L1 = "Rents: [car_type, car_name = getcarsavailable(#city='Warsaw', #start_date='2019-03-07')]";
const L2 = 'Rents: [car_type = reservecar(#car_type=car_type)]';

describe('extractPlanLines', () => {
  it('keeps plain plan lines unchanged', () => {
    expect(extractPlanLines(`${L1}\n${L2}`)).toBe(`${L1}\n${L2}`);
  });

  it('strips fences, chatter, numbering, bullets, bold and inline code', () => {
    const reply = [
      'Here is the plan you asked for:',
      '```text',
      `1. **${L1}**`,
      `- \`${L2}\``,
      '```',
      'Let me know if you need anything else!',
    ].join('\n');
    expect(extractPlanLines(reply)).toBe(`${L1}\n${L2}`);
  });

  it('handles "Step n:" markers, CRLF and trailing punctuation', () => {
    expect(extractPlanLines(`Step 1: ${L1},\r\nStep 2) ${L2}.`)).toBe(`${L1}\n${L2}`);
  });

  it('recovers the app from an App_api call written without the app prefix', () => {
    expect(extractPlanLines("[weather = Weather_getweather(#city='Oslo')]")).toBe(
      "Weather: [weather = Weather_getweather(#city='Oslo')]",
    );
    expect(extractPlanLines("weather = Weather_getweather(#city='Oslo')")).toBe(
      "Weather: [weather = Weather_getweather(#city='Oslo')]",
    );
  });

  it('joins an App line with the call on the next line', () => {
    expect(
      extractPlanLines(`**Rents:**\n[car_type = reservecar(#car_type=car_type)]\nWeather:\nnothing`),
    ).toBe(L2);
  });

  it('returns an empty string when there is no plan line', () => {
    expect(extractPlanLines('')).toBe('');
    expect(extractPlanLines('I am sorry, I cannot do that.')).toBe('');
    expect(extractPlanLines('["Rents", "Hotels"]')).toBe('');
    expect(extractPlanLines('Note: [see above]')).toBe('');
  });

  const planLine = fc
    .record({
      app: fc.constantFrom('Rents', 'Hotels', 'Weather', 'Trains'),
      outs: fc.array(fc.stringMatching(/^[a-z_]{1,10}$/), { minLength: 1, maxLength: 3 }),
      api: fc.stringMatching(/^[a-z]{1,12}$/),
      args: fc.array(
        fc.tuple(fc.stringMatching(/^[a-z_]{1,8}$/), fc.stringMatching(/^[A-Za-z0-9 :-]{0,12}$/)),
        {
          maxLength: 3,
        },
      ),
    })
    .map(
      ({ app, outs, api, args }) =>
        `${app}: [${outs.join(', ')} = ${api}(${args.map(([k, v]) => `#${k}='${v}'`).join(', ')})]`,
    );

  it('property: never throws and every output line looks like a plan line', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const out = extractPlanLines(text);
        if (out === '') return;
        for (const line of out.split('\n')) expect(line).toMatch(/^\w+: \[.*=.*\(.*\).*\]$/);
      }),
    );
  });

  it('property: idempotent', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(planLine, fc.string({ maxLength: 60 })), { maxLength: 8 }), (lines) => {
        const once = extractPlanLines(lines.join('\n'));
        expect(extractPlanLines(once)).toBe(once);
      }),
    );
  });

  it('property: well-formed plan lines survive any wrapping chatter, in order', () => {
    const chatter = fc
      .string({ maxLength: 40 })
      .filter((s) => !s.includes('[') && !s.includes('\n') && !s.includes('\r'));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(planLine, chatter, fc.constantFrom('', '1. ', '- ', '**')), {
          minLength: 1,
          maxLength: 5,
        }),
        (items) => {
          const text = items
            .map(([line, talk, marker]) => `${talk}\n${marker}${line}${marker === '**' ? '**' : ''}`)
            .join('\n');
          expect(extractPlanLines(text)).toBe(items.map(([line]) => line).join('\n'));
        },
      ),
    );
  });
});
