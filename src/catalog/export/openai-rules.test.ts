import { describe, expect, it } from 'vitest';
import { checkOpenAiTool, checkOpenAiTools, type OpenAiToolLike } from './openai-rules.js';

const fn = (f: OpenAiToolLike['function']): OpenAiToolLike => ({ type: 'function', function: f });
const rules = (def: OpenAiToolLike, strict?: boolean) =>
  checkOpenAiTool(def, strict === undefined ? {} : { strict }).map((v) => `${v.rule} ${v.path}`);

const good = fn({
  name: 'Rents_reservecar',
  description: 'Make a rental car reservation',
  parameters: {
    type: 'object',
    properties: {
      start_date: { type: 'string', format: 'date' },
      car_type: { type: 'string', enum: ['Sedan', 'SUV'], default: 'Sedan' },
    },
    required: ['start_date'],
    additionalProperties: false,
  },
});

const goodStrict = fn({
  name: 'Rents_reservecar',
  description: 'Make a rental car reservation',
  strict: true,
  parameters: {
    type: 'object',
    properties: {
      start_date: { type: 'string', format: 'date' },
      car_type: { type: ['string', 'null'], enum: ['Sedan', 'SUV', null], description: 'Default: "Sedan".' },
      extras: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      driver: {
        anyOf: [
          {
            type: 'object',
            properties: { name: { type: 'string' } },
            required: ['name'],
            additionalProperties: false,
          },
          { type: 'null' },
        ],
      },
    },
    required: ['start_date', 'car_type', 'extras', 'driver'],
    additionalProperties: false,
  },
});

describe("OpenAI's function-definition rules", () => {
  it('accepts a plain and a strict definition that follow them', () => {
    expect(checkOpenAiTool(good)).toEqual([]);
    expect(checkOpenAiTool(goodStrict)).toEqual([]);
    expect(checkOpenAiTool(fn({ name: 'a-b_9' }))).toEqual([]); // parameters and description are optional
  });

  it('name: ^[a-zA-Z0-9_-]{1,64}$', () => {
    expect(rules(fn({ name: 'is.workflow.actions.url' }))).toEqual(['name-pattern name']);
    expect(rules(fn({ name: '' }))).toEqual(['name-pattern name']);
    expect(rules(fn({ name: 'x'.repeat(65) }))).toEqual(['name-pattern name']);
    expect(rules(fn({ name: 'x'.repeat(64) }))).toEqual([]);
    expect(rules(fn({ name: '账户查询' }))).toEqual(['name-pattern name']);
  });

  it('description: at most 1,024 characters', () => {
    expect(rules(fn({ name: 'f', description: 'd'.repeat(1024) }))).toEqual([]);
    expect(checkOpenAiTool(fn({ name: 'f', description: 'd'.repeat(1025) }))).toEqual([
      {
        tool: 'f',
        rule: 'description-length',
        path: 'description',
        message: 'description has 1025 characters (at most 1024)',
      },
    ]);
  });

  it('parameters: a JSON Schema object', () => {
    expect(rules(fn({ name: 'f', parameters: { type: 'string' } }))).toEqual(['parameters-object $']);
    expect(rules(fn({ name: 'f', parameters: [] }))).toEqual(['parameters-object $']);
  });

  it('no repeated enum values or required entries, at any depth', () => {
    const def = fn({
      name: 'f',
      parameters: {
        type: 'object',
        properties: {
          p: { type: 'string', enum: ['Store URL', 'Name', 'Store URL'] },
          o: {
            type: 'object',
            properties: { q: { type: 'array', items: { enum: [1, 1] } } },
            required: ['q', 'q'],
          },
        },
        required: ['p', 'p'],
      },
    });
    expect(checkOpenAiTool(def).map((v) => [v.rule, v.path, v.message])).toEqual([
      ['duplicate-required', '$.required', 'required entry "p" repeats'],
      ['duplicate-enum', '$.properties.p.enum', 'enum value "Store URL" repeats'],
      ['duplicate-required', '$.properties.o.required', 'required entry "q" repeats'],
      ['duplicate-enum', '$.properties.o.properties.q.items.enum', 'enum value 1 repeats'],
    ]);
  });

  it('strict mode: closed objects, every property required, supported keywords and formats, anyOf for unions', () => {
    expect(rules({ ...good, function: { ...good.function, strict: true } })).toEqual([
      'strict-all-required $',
      'strict-keyword $.properties.car_type',
    ]);
    expect(rules(good, true)).toEqual([
      'strict-flag strict',
      'strict-all-required $',
      'strict-keyword $.properties.car_type',
    ]);
    const def = fn({
      name: 'f',
      strict: true,
      parameters: {
        type: 'object',
        properties: {
          u: { type: 'string', format: 'uri', minLength: 1 },
          any: {},
          either: { type: ['string', 'object'] },
          nested: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] },
        },
        required: ['u', 'any', 'either', 'nested'],
        additionalProperties: false,
      },
    });
    expect(checkOpenAiTool(def).map((v) => [v.rule, v.path, v.message])).toEqual([
      ['strict-keyword', '$.properties.u', 'keyword "minLength" is not supported in strict mode'],
      ['strict-format', '$.properties.u', 'format "uri" is not supported in strict mode'],
      [
        'strict-type',
        '$.properties.any',
        'a schema needs a type (or anyOf, $ref, enum, const) in strict mode',
      ],
      [
        'strict-type',
        '$.properties.either',
        'a union of types is written as anyOf in strict mode (a type list only adds "null")',
      ],
      [
        'strict-additional-properties',
        '$.properties.either',
        'an object needs additionalProperties: false in strict mode',
      ],
      [
        'strict-additional-properties',
        '$.properties.nested',
        'an object needs additionalProperties: false in strict mode',
      ],
    ]);
  });

  it('a tools list: every definition, and a name used twice', () => {
    const twice = checkOpenAiTools([good, goodStrict, fn({ name: 'bad name' })]);
    expect(twice.map((v) => [v.tool, v.rule, v.message])).toEqual([
      ['bad name', 'name-pattern', 'name must match ^[a-zA-Z0-9_-]{1,64}$'],
      ['Rents_reservecar', 'duplicate-name', '2 definitions are named "Rents_reservecar"'],
    ]);
  });
});
