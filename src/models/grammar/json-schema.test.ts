import { MockLanguageModelV3 } from 'ai/test';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../shared/index.js';
import { startScriptedOpenAiServer } from '../../test/index.js';
import { generate } from '../generate.js';
import { resolveModelSetup } from '../resolve-model.js';
import { type GrammarJudge, loadGrammarJudge } from './__fixtures__/llama-judge.js';
import { CONSTRAINT_PROVIDER_KEY, readConstraint } from './constraint.js';
import { integerRangeGbnf } from './integer-range.js';
import { jsonSchemaGrammar } from './json-schema.js';
import { parseToolCallOutput, toolCallGrammar } from './tool-call.js';

let judge: GrammarJudge;
beforeAll(async () => {
  judge = await loadGrammarJudge();
}, 30_000);
afterAll(async () => {
  await judge?.dispose();
});

/** The judge's verdict on each text: which the grammar accepts. */
async function verdicts(grammar: string, texts: string[]): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {};
  for (const t of texts) out[t] = await judge.accepts(grammar, t);
  return out;
}

describe('jsonSchemaGrammar (llama.cpp as the judge)', () => {
  it('objects: required and optional properties in declared order, closed, bounded whitespace', async () => {
    const g = jsonSchemaGrammar({
      type: 'object',
      properties: { a: { type: 'boolean' }, b: { type: 'null' }, c: { type: 'boolean' } },
      required: ['b'],
    });
    expect(
      await verdicts(g, [
        '{"b":null}',
        '{"a":true,"b":null}',
        '{"b":null,"c":false}',
        '{ "a": false, "b": null, "c": true }',
        '{}',
        '{"a":true}',
        '{"b":null,"a":true}',
        '{"b":null,"d":1}',
        '{"b":null,}',
        '{"b":  null}',
      ]),
    ).toEqual({
      '{"b":null}': true,
      '{"a":true,"b":null}': true,
      '{"b":null,"c":false}': true,
      '{ "a": false, "b": null, "c": true }': true,
      '{}': false,
      '{"a":true}': false,
      '{"b":null,"a":true}': false,
      '{"b":null,"d":1}': false,
      '{"b":null,}': false,
      '{"b":  null}': false,
    });
  });

  it('an object of optional properties only may be empty', async () => {
    const g = jsonSchemaGrammar({ type: 'object', properties: { x: { const: 1 }, y: { const: 2 } } });
    expect(await verdicts(g, ['{}', '{"y":2}', '{"x":1,"y":2}', '{"x":1,}', '{,"y":2}'])).toEqual({
      '{}': true,
      '{"y":2}': true,
      '{"x":1,"y":2}': true,
      '{"x":1,}': false,
      '{,"y":2}': false,
    });
  });

  it('an enum keeps only the values of its type', async () => {
    const g = jsonSchemaGrammar({ type: 'string', enum: ['a', 1, null, 'b'] });
    expect(await verdicts(g, ['"a"', '"b"', '1', 'null'])).toEqual({
      '"a"': true,
      '"b"': true,
      '1': false,
      null: false,
    });
  });

  it('enum, const and type unions', async () => {
    const g = jsonSchemaGrammar({
      type: 'object',
      properties: {
        e: { enum: ['red', 'green', 3, null] },
        k: { const: 'fixed' },
        u: { type: ['integer', 'null'] },
      },
      required: ['e', 'k', 'u'],
    });
    expect(
      await verdicts(g, [
        '{"e":"red","k":"fixed","u":null}',
        '{"e":3,"k":"fixed","u":-12}',
        '{"e":null,"k":"fixed","u":0}',
        '{"e":"blue","k":"fixed","u":1}',
        '{"e":"red","k":"other","u":1}',
        '{"e":"red","k":"fixed","u":1.5}',
        '{"e":"red","k":"fixed","u":"1"}',
      ]),
    ).toEqual({
      '{"e":"red","k":"fixed","u":null}': true,
      '{"e":3,"k":"fixed","u":-12}': true,
      '{"e":null,"k":"fixed","u":0}': true,
      '{"e":"blue","k":"fixed","u":1}': false,
      '{"e":"red","k":"other","u":1}': false,
      '{"e":"red","k":"fixed","u":1.5}': false,
      '{"e":"red","k":"fixed","u":"1"}': false,
    });
  });

  it('integers: no leading zeros, exponent, fraction or -0; exact ranges, exclusive bounds of both drafts', async () => {
    const any = jsonSchemaGrammar({ type: 'integer' });
    expect(await verdicts(any, ['0', '-7', '120', '007', '-0', '1e3', '1.0', '+1'])).toEqual({
      '0': true,
      '-7': true,
      '120': true,
      '007': false,
      '-0': false,
      '1e3': false,
      '1.0': false,
      '+1': false,
    });
    const ranged = jsonSchemaGrammar({ type: 'integer', minimum: -15, exclusiveMaximum: 250 });
    expect(await verdicts(ranged, ['-15', '-16', '-9', '0', '99', '249', '250', '1000'])).toEqual({
      '-15': true,
      '-16': false,
      '-9': true,
      '0': true,
      '99': true,
      '249': true,
      '250': false,
      '1000': false,
    });
    const draft4 = jsonSchemaGrammar({ type: 'integer', minimum: 10, exclusiveMinimum: true, maximum: 12 });
    expect(await verdicts(draft4, ['10', '11', '12', '13'])).toEqual({
      '10': false,
      '11': true,
      '12': true,
      '13': false,
    });
  });

  it('integer ranges are exact: every value of [-1200, 1200] against several ranges', () => {
    const ranges: Array<[number, number]> = [
      [0, 0],
      [7, 7],
      [-3, 3],
      [13, 987],
      [-1000, -10],
      [100, 199],
      [-1, 1099],
      [5, 1200],
    ];
    for (const [lo, hi] of ranges) {
      const gbnf = integerRangeGbnf(lo, hi)!;
      const regex = new RegExp(`^(?:${gbnfToRegex(gbnf)})$`);
      const wrong: number[] = [];
      for (let v = -1200; v <= 1200; v++) if (regex.test(String(v)) !== (v >= lo && v <= hi)) wrong.push(v);
      expect({ lo, hi, wrong }).toEqual({ lo, hi, wrong: [] });
    }
    expect(integerRangeGbnf(5, 4)).toBeNull();
  });

  it('numbers: no exponent; with bounds, integers exactly and fractions that stay in range', async () => {
    const g = jsonSchemaGrammar({ type: 'number', minimum: -2.5, maximum: 10 });
    expect(
      await verdicts(g, ['10', '-2', '9.75', '-1.5', '0.125', '10.5', '-3', '1e2', '-2.4', '11']),
    ).toEqual({
      '10': true,
      '-2': true,
      '9.75': true,
      '-1.5': true,
      '0.125': true,
      '10.5': false,
      '-3': false,
      '1e2': false,
      // approximated: -2.4 is in range, but -2.x is not offered (some -2.x are below -2.5)
      '-2.4': false,
      '11': false,
    });
  });

  it('strings: JSON escapes, min/maxLength', async () => {
    const g = jsonSchemaGrammar({ type: 'string', minLength: 2, maxLength: 4 });
    expect(
      await verdicts(g, ['"ab"', '"a\\"b"', '"\\u00e9x"', '"a"', '"abcde"', '"a"b"', '"a\\qb"']),
    ).toEqual({
      '"ab"': true,
      '"a\\"b"': true,
      '"\\u00e9x"': true,
      '"a"': false,
      '"abcde"': false,
      '"a"b"': false,
      '"a\\qb"': false,
    });
  });

  it('patterns: the safe subset as a whole-string match; quotes and backslashes escaped', async () => {
    const g = jsonSchemaGrammar({ type: 'string', pattern: '^[A-Z]{2}-\\d{3}(x|yz)?$' });
    expect(
      await verdicts(g, ['"AB-123"', '"QZ-000yz"', '"AB-123x"', '"ab-123"', '"AB-12"', '"AB-123xy"']),
    ).toEqual({
      '"AB-123"': true,
      '"QZ-000yz"': true,
      '"AB-123x"': true,
      '"ab-123"': false,
      '"AB-12"': false,
      '"AB-123xy"': false,
    });
    const quoted = jsonSchemaGrammar({ type: 'string', pattern: '^say "[^"]+"\\.$' });
    expect(await verdicts(quoted, ['"say \\"hi\\"."', '"say "hi"."', '"say \\"\\"."'])).toEqual({
      '"say \\"hi\\"."': true,
      '"say "hi"."': false,
      '"say \\"\\"."': false,
    });
  });

  it('an unsupported pattern falls back to any string and says so', async () => {
    const notes: string[] = [];
    const g = jsonSchemaGrammar(
      { type: 'string', pattern: '^(a)\\1$' },
      { onApproximation: (n) => notes.push(n) },
    );
    expect(notes).toEqual([
      'value: pattern "^(a)\\\\1$" is outside the supported subset (the escape \\1): any string is allowed',
    ]);
    expect(await verdicts(g, ['"aa"', '"zz"'])).toEqual({ '"aa"': true, '"zz"': true });
  });

  it('arrays with items, minItems and maxItems', async () => {
    const g = jsonSchemaGrammar({ type: 'array', items: { enum: [1, 2] }, minItems: 1, maxItems: 3 });
    expect(await verdicts(g, ['[1]', '[1, 2,1]', '[]', '[1,2,1,2]', '[3]', '[1,]'])).toEqual({
      '[1]': true,
      '[1, 2,1]': true,
      '[]': false,
      '[1,2,1,2]': false,
      '[3]': false,
      '[1,]': false,
    });
  });

  it('anyOf / oneOf as alternation, $ref to $defs and definitions, recursion', async () => {
    const g = jsonSchemaGrammar({
      $defs: { leaf: { type: 'integer', minimum: 0, maximum: 9 } },
      definitions: {
        tree: {
          type: 'object',
          properties: {
            v: { $ref: '#/$defs/leaf' },
            kids: { type: 'array', items: { $ref: '#/definitions/tree' }, maxItems: 2 },
          },
          required: ['v'],
        },
      },
      anyOf: [{ $ref: '#/definitions/tree' }, { type: 'string', maxLength: 1 }],
    });
    expect(
      await verdicts(g, [
        '{"v":3}',
        '{"v":1,"kids":[{"v":2},{"v":0,"kids":[]}]}',
        '"x"',
        '{"v":10}',
        '"xy"',
        '{"kids":[]}',
      ]),
    ).toEqual({
      '{"v":3}': true,
      '{"v":1,"kids":[{"v":2},{"v":0,"kids":[]}]}': true,
      '"x"': true,
      '{"v":10}': false,
      '"xy"': false,
      '{"kids":[]}': false,
    });
  });

  it('refuses what cannot be generated, naming the place', () => {
    expect(() => jsonSchemaGrammar({ type: 'object', properties: { a: false } })).toThrow(
      'schema at "value-a" is false: no value is allowed, nothing can be generated',
    );
    expect(() => jsonSchemaGrammar({ $ref: '#/$defs/missing' })).toThrow(
      'schema at "value": $ref "#/$defs/missing" names no definition',
    );
    expect(() => jsonSchemaGrammar({ type: 'integer', enum: ['a', 1.5] })).toThrow(
      'schema at "value" has no enum value of its type',
    );
    expect(() => jsonSchemaGrammar({ enum: [] })).toThrow('schema at "value" has no enum value of its type');
    expect(() => jsonSchemaGrammar({ type: 'string', minLength: 1, maxLength: 0 })).toThrow(
      'schema at "value": minLength 1 > maxLength 0: no string fits',
    );
    expect(() => jsonSchemaGrammar({ type: 'array', minItems: 3, maxItems: 2 })).toThrow(
      'schema at "value": minItems 3 > maxItems 2: no array fits',
    );
    expect(() => jsonSchemaGrammar({ type: 'integer', minimum: 3, maximum: 2 })).toThrow(
      'schema at "value": no integer lies in [3, 2]',
    );
    const huge = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 400 }, (_, i) => [`p${i}`, { type: 'integer', minimum: i, maximum: 5000 + i }]),
      ),
    };
    expect(() => jsonSchemaGrammar(huge, { maxGrammarChars: 20_000 })).toThrow(
      /the output grammar grew past 20000 characters/,
    );
  });
});

/** A random schema of the supported subset (seeded): nested objects, arrays, ranges, patterns, enums, unions. */
function randomSchema(rand: () => number, depth = 0): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  const leaves: Array<() => Record<string, unknown>> = [
    () => {
      const lo = int(-2000, 2000);
      return { type: 'integer', minimum: lo, maximum: lo + int(0, 3000) };
    },
    () => ({ type: 'integer', exclusiveMinimum: int(-50, 50) }),
    () => ({ type: 'integer', maximum: int(-500, 500), exclusiveMaximum: int(-500, 500) }),
    () => {
      const lo = int(-100, 100) / 4;
      return { type: 'number', minimum: lo, maximum: lo + int(1, 400) / 4 };
    },
    () => ({ type: 'number', exclusiveMinimum: int(-10, 10) }),
    () => ({ type: 'string', maxLength: int(2, 6), minLength: int(0, 2) }),
    () => ({
      type: 'string',
      pattern: pick(['^[a-c]{1,3}$', '^x(y|zz)?d$', '[A-Z]+-d{2}', '^w.s$', '^[^a-z]{2}$']),
    }),
    () => ({
      enum: pick([
        ['a', 'b'],
        [1, 2.5, null],
        [true, 'x', { k: [1] }],
      ]),
    }),
    () => ({ const: pick(['c', 7, false]) }),
    () => ({ type: pick(['boolean', 'null']) }),
    () => ({ type: ['integer', 'string'], minimum: 0, maximum: 9, maxLength: 2 }),
  ];
  if (depth >= 2 || rand() < 0.35) return pick(leaves)();
  const kind = pick(['object', 'object', 'array', 'anyOf']);
  if (kind === 'array')
    return { type: 'array', items: randomSchema(rand, depth + 1), minItems: int(0, 1), maxItems: int(1, 3) };
  if (kind === 'anyOf') return { anyOf: [randomSchema(rand, depth + 1), randomSchema(rand, depth + 1)] };
  const n = int(1, 4);
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) properties[`p${i}`] = randomSchema(rand, depth + 1);
  const required = Object.keys(properties).filter(() => rand() < 0.5);
  return { type: 'object', properties, required, additionalProperties: false };
}

describe('jsonSchemaGrammar on random schemas', () => {
  it('30 seeded random schemas × 4 generations: every output validates (Ajv)', async () => {
    const rand = mulberry32(28);
    const ajv = new Ajv({ strict: false });
    const failures: string[] = [];
    for (let i = 0; i < 30; i++) {
      const schema = randomSchema(rand);
      const grammar = jsonSchemaGrammar(schema, { maxStringLength: 6, maxItems: 3 });
      const validate = ajv.compile(schema);
      for (const text of await judge.generate(grammar, { count: 4, seed: 100 * i, maxTokens: 300 })) {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          failures.push(`${JSON.stringify(schema)}: not JSON: ${text}`);
          continue;
        }
        if (!validate(value))
          failures.push(`${JSON.stringify(schema)}: ${ajv.errorsText(validate.errors)}: ${text}`);
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);
});

/** A GBNF expression of digit classes, literals, groups and `{n}` as a JS regex (integer ranges only). */
function gbnfToRegex(gbnf: string): string {
  return gbnf
    .replace(/"([^"]*)"/g, (_, s: string) => s.replace(/[-]/g, '\\-'))
    .replace(/\s+/g, '')
    .replace(/\(/g, '(?:');
}

describe('toolCallGrammar', () => {
  const tools = {
    book_table: {
      description: 'Book a table',
      inputSchema: {
        type: 'object',
        properties: {
          restaurant: { type: 'string', enum: ['Nopa', 'Zuni Cafe'] },
          party_size: { type: 'integer', minimum: 1, maximum: 12 },
          date: { type: 'string', pattern: '^2019-0[1-9]-[0-2][0-9]$' },
          note: { type: 'string', maxLength: 10 },
        },
        required: ['restaurant', 'party_size', 'date'],
        additionalProperties: false,
      },
    },
    get_weather: {
      inputSchema: {
        type: 'object',
        properties: {
          city: { type: 'string', pattern: '^[A-Z][a-z]{2,8}$' },
          days: { type: 'integer', exclusiveMinimum: 0, maximum: 7 },
        },
        required: ['city'],
      },
    },
  };

  it('100 seeded generations of the tiny model: each one call of an offered tool (or an answer) that validates', async () => {
    const grammar = toolCallGrammar(tools, { allowFinalAnswer: true, maxStringLength: 12 });
    const outputs = await judge.generate(grammar, { count: 100, seed: 1, maxTokens: 200, temperature: 0.9 });
    const ajv = new Ajv({ strict: false });
    const validators = {
      book_table: ajv.compile(tools.book_table.inputSchema),
      get_weather: ajv.compile(tools.get_weather.inputSchema),
    };
    const kinds = { call: 0, answer: 0, invalid: 0 };
    const failures: string[] = [];
    for (const text of outputs) {
      const parsed = parseToolCallOutput(text);
      kinds[parsed.kind]++;
      if (parsed.kind === 'invalid') failures.push(`${parsed.reason}: ${text}`);
      if (parsed.kind === 'call') {
        const validate = validators[parsed.toolName as keyof typeof validators];
        if (!validate) failures.push(`unknown tool: ${text}`);
        else if (!validate(parsed.input)) failures.push(`${ajv.errorsText(validate.errors)}: ${text}`);
      }
    }
    expect(failures).toEqual([]);
    expect(kinds.invalid).toBe(0);
    expect(kinds.call + kinds.answer).toBe(100);
    expect(kinds.call).toBeGreaterThan(0);
  }, 60_000);

  it('without a final answer every output is a call', async () => {
    const grammar = toolCallGrammar(tools, { allowFinalAnswer: false, maxStringLength: 8 });
    expect(await judge.accepts(grammar, '{"final_answer":"hi"}')).toBe(false);
    expect(await judge.accepts(grammar, '{"tool":"get_weather","arguments":{"city":"Paris","days":3}}')).toBe(
      true,
    );
    expect(await judge.accepts(grammar, '{"tool":"get_weather","arguments":{"city":"paris"}}')).toBe(false);
  });

  it('a final answer may be longer than argument strings: maxAnswerLength (300 here, 12 for arguments)', async () => {
    const grammar = toolCallGrammar(tools, {
      allowFinalAnswer: true,
      maxStringLength: 12,
      maxAnswerLength: 300,
    });
    const answer = (n: number) => `{"final_answer":"${'a'.repeat(n)}"}`;
    expect(await verdicts(grammar, [answer(13), answer(300), answer(301)])).toEqual({
      [answer(13)]: true,
      [answer(300)]: true,
      [answer(301)]: false,
    });
    // without it the answer has the arguments' bound
    const short = toolCallGrammar(tools, { allowFinalAnswer: true, maxStringLength: 12 });
    expect(await verdicts(short, [answer(12), answer(13)])).toEqual({
      [answer(12)]: true,
      [answer(13)]: false,
    });
  });

  it('a tool whose schema is {} takes any object as its arguments, never another value', async () => {
    const grammar = toolCallGrammar({ anything: { inputSchema: {} } }, { allowFinalAnswer: false });
    expect(
      await verdicts(grammar, [
        '{"tool":"anything","arguments":{}}',
        '{"tool":"anything","arguments":{"a":[1,"x"]}}',
        '{"tool":"anything","arguments":5}',
        '{"tool":"anything","arguments":"x"}',
      ]),
    ).toEqual({
      '{"tool":"anything","arguments":{}}': true,
      '{"tool":"anything","arguments":{"a":[1,"x"]}}': true,
      '{"tool":"anything","arguments":5}': false,
      '{"tool":"anything","arguments":"x"}': false,
    });
  });

  it('parseToolCallOutput reads calls and answers and never throws', () => {
    expect(parseToolCallOutput(' {"tool":"t","arguments":{"a":1}} ')).toEqual({
      kind: 'call',
      toolName: 't',
      input: { a: 1 },
    });
    expect(parseToolCallOutput('{"final_answer":"done"}')).toEqual({ kind: 'answer', text: 'done' });
    expect(parseToolCallOutput('{"tool":"t"}')).toEqual({
      kind: 'invalid',
      reason: 'a tool call without "arguments"',
    });
    expect(parseToolCallOutput('[1]')).toEqual({ kind: 'invalid', reason: 'not a JSON object' });
    expect(parseToolCallOutput('{"x":1}')).toEqual({
      kind: 'invalid',
      reason: 'neither {"tool", "arguments"} nor {"final_answer"}',
    });
    expect(parseToolCallOutput('{').kind).toBe('invalid');
  });
});

describe('a constraint travels with generate()', () => {
  const answer = {
    content: [{ type: 'text' as const, text: '{}' }],
    finishReason: { unified: 'stop' as const, raw: 'stop' },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
    warnings: [],
  };
  for (const directTurns of [true, false])
    it(`as providerOptions.${CONSTRAINT_PROVIDER_KEY} (${directTurns ? 'direct turn' : 'generateText'}); none without one`, async () => {
      const model = new MockLanguageModelV3({ doGenerate: async () => answer });
      const constraint = { name: 'json', grammar: 'root ::= "{}"\n' };
      await generate({ model, messages: [{ role: 'user', content: 'hi' }], constraint }, { directTurns });
      await generate({ model, messages: [{ role: 'user', content: 'hi' }] }, { directTurns });
      expect(model.doGenerateCalls.map((c) => c.providerOptions)).toEqual([
        { apiaryGrammar: { grammar: 'root ::= "{}"\n', constraintName: 'json' } },
        undefined,
      ]);
      expect(readConstraint(model.doGenerateCalls[0]!.providerOptions)).toEqual({
        grammar: 'root ::= "{}"\n',
        constraintName: 'json',
      });
      expect(readConstraint(model.doGenerateCalls[1]!.providerOptions)).toBeUndefined();
    });

  it('an OpenAI-compatible endpoint never receives it (the request body is as without a constraint)', async () => {
    const server = await startScriptedOpenAiServer({ respond: () => 'ok' });
    try {
      const setup = resolveModelSetup({ baseURL: server.url, model: 'm' }, { env: {}, cwd: '/nonexistent' })!;
      const constraint = { name: 'json', grammar: 'root ::= "{}"\n' };
      for (const c of [constraint, undefined])
        await generate({
          model: setup.model,
          messages: [{ role: 'user', content: 'hi' }],
          ...(c ? { constraint: c } : {}),
        });
      const [withIt, without] = server.requests.map((r) => r.body);
      expect(withIt).toEqual(without);
      expect(Object.keys(withIt)).toEqual(['model', 'messages']);
    } finally {
      await server.close();
    }
  });
});
