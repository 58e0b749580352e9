import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';
import { loadCatalog } from '../load-catalog.js';
import type { Api, Parameter } from '../schema.js';
import { auditOpenAiTools } from './__fixtures__/openai-check.js';
import { apiInputJsonSchema } from './json-schema.js';
import { checkOpenAiTools } from './openai-rules.js';
import { toStrictJsonSchema } from './strict-schema.js';
import { assignToolNames, toOpenAiTools, toolDescriptionOf } from './tool-definitions.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const api = (app: string, name: string, more: Partial<Api> = {}): Api => ({
  id: `${app}/${name}`,
  app,
  name,
  description: `${name} of ${app}`,
  transactional: false,
  parameters: [],
  outputs: [],
  ...more,
});
const param = (
  name: string,
  type: Parameter['type'],
  required = false,
  more: Partial<Parameter> = {},
): Parameter => ({
  name,
  type,
  required,
  ...more,
});

// Issue 26 item 4: definitions every provider accepts, for every bundled catalog (ToolBench: the data suite).
describe('OpenAI tool definitions of the bundled catalogs', () => {
  const dataDir = join(import.meta.dirname, '../../../data');
  const clean = (definitions: number) => ({
    definitions,
    names: definitions,
    rejected: 0,
    violations: [],
    invalidSchemas: [],
    invalidSchemaCount: 0,
  });

  it.each([
    ['appbench', 33],
    ['sgd', 88],
    ['shortcuts', 1414], // before: 10 rejected (9 descriptions over 1,024 characters, 1 repeated enum value)
    ['gta', 14],
  ])('%s: every definition passes, plain and strict (%i)', (name, count) => {
    const { apis } = loadCatalog(name, { dataDir });
    expect(apis).toHaveLength(count);
    expect(auditOpenAiTools(toOpenAiTools(apis), { compile: true })).toEqual(clean(count));
    const strict = toOpenAiTools(apis, { strict: true });
    expect(strict.every((d) => d.function.strict === true)).toBe(true);
    expect(auditOpenAiTools(strict, { compile: true })).toEqual(clean(count));
  });

  it('valid definitions are unchanged: AppBench exports as before (names, descriptions, schemas)', () => {
    const { apis } = loadCatalog('appbench', { dataDir });
    expect(toOpenAiTools(apis)[0]).toEqual({
      type: 'function',
      function: {
        name: apis[0]!.id.replace('.', '_'),
        description: apis[0]!.description,
        parameters: apiInputJsonSchema(apis[0]!),
      },
    });
  });
});

describe('unique, reversible tool names', () => {
  it('APIs whose names lose characters the same way get a hash of their id; names map back to APIs', () => {
    const apis = [
      api('Other/meta_v1', '账户查询'),
      api('Other/meta_v1', '付费更新'),
      api('Other/meta_v1', 'x'),
    ];
    const names = assignToolNames(apis);
    expect([...names.nameOf]).toEqual([
      ['Other/meta_v1/x', 'Other_meta_v1_x'],
      ['Other/meta_v1/付费更新', 'Other_meta_v1______a8e55748'],
      ['Other/meta_v1/账户查询', 'Other_meta_v1______dbc2c05d'],
    ]);
    for (const a of apis) expect(names.apiOf.get(names.nameOf.get(a.id)!)).toBe(a);
    // Deterministic: the same set in another order gives the same names.
    expect([...assignToolNames([...apis].reverse()).nameOf].sort()).toEqual([...names.nameOf].sort());
    expect(toOpenAiTools(apis).map((d) => d.function.name)).toEqual([
      'Other_meta_v1______dbc2c05d',
      'Other_meta_v1______a8e55748',
      'Other_meta_v1_x',
    ]);
  });

  it('a name kept exactly stays; only the lossy one is suffixed; two exact ones are both suffixed', () => {
    expect([...assignToolNames([api('a', 'b c'), api('a', 'b_c')]).nameOf]).toEqual([
      ['a/b_c', 'a_b_c'],
      ['a/b c', 'a_b_c_9f597a63'],
    ]);
    expect([...assignToolNames([api('a', 'b_c'), api('a_b', 'c')]).nameOf]).toEqual([
      ['a/b_c', 'a_b_c_f53c27da'],
      ['a_b/c', 'a_b_c_9eddecd1'],
    ]);
  });

  it('a suffixed name over 64 characters is cut to 64', () => {
    const long = 'x'.repeat(70);
    const names = assignToolNames([api('A', `${long}é`), api('A', `${long}è`)]);
    const all = [...names.nameOf.values()];
    expect(all.map((n) => n.length)).toEqual([64, 64]);
    expect(new Set(all).size).toBe(2);
    expect(checkOpenAiTools(toOpenAiTools([...names.apiOf.values()]))).toEqual([]);
  });
});

describe('descriptions under 1,024 characters', () => {
  it('a longer one is cut at a word and marked; the catalog keeps the full text', () => {
    const a = api('A', 'f', { description: 'abcd '.repeat(300) });
    expect(toolDescriptionOf(a)).toBe(`${'abcd '.repeat(203)}abcd …`);
    expect(toolDescriptionOf(a)).toHaveLength(1021);
    expect(a.description).toHaveLength(1500);
    expect(toOpenAiTools([a])[0]!.function.description).toBe(toolDescriptionOf(a));
  });

  it('never splits a surrogate pair; text at the limit is unchanged', () => {
    const emoji = api('A', 'f', { description: `x${'😀'.repeat(600)}` });
    expect(toolDescriptionOf(emoji)).toBe(`x${'😀'.repeat(510)} …`);
    const exact = api('A', 'f', { description: 'd'.repeat(1024) });
    expect(toolDescriptionOf(exact)).toBe(exact.description);
  });
});

describe('input schemas without repeats', () => {
  it('enum values and required entries appear once', () => {
    const a = api('A', 'f', {
      parameters: [
        param('p', {
          kind: 'enum',
          values: [{ value: 'Store URL' }, { value: 'Name' }, { value: 'Store URL' }],
        }),
        param('q', { kind: 'primitive', name: 'string' }, true),
        param('q', { kind: 'primitive', name: 'string' }, true),
      ],
    });
    expect(apiInputJsonSchema(a)).toEqual({
      type: 'object',
      properties: { p: { type: 'string', enum: ['Store URL', 'Name'] }, q: { type: 'string' } },
      required: ['q'],
      additionalProperties: false,
    });
  });
});

describe('strict-mode schemas', () => {
  it('every property required, optional ones nullable, defaults into the description', () => {
    const reserve = api('Rents', 'reservecar', {
      parameters: [
        param('start_date', { kind: 'primitive', name: 'date' }, true, { description: 'First day' }),
        param(
          'car_type',
          { kind: 'enum', values: [{ value: 'Sedan' }, { value: 'SUV', label: 'Sport utility' }] },
          false,
          {
            default: 'Sedan',
          },
        ),
      ],
    });
    expect(toOpenAiTools([reserve], { strict: true })[0]).toEqual({
      type: 'function',
      function: {
        name: 'Rents_reservecar',
        description: 'reservecar of Rents',
        strict: true,
        parameters: {
          type: 'object',
          properties: {
            start_date: { type: 'string', format: 'date', description: 'First day' },
            car_type: {
              type: ['string', 'null'],
              enum: ['Sedan', 'SUV', null],
              description: 'SUV: Sport utility Default: "Sedan".',
            },
          },
          required: ['start_date', 'car_type'],
          additionalProperties: false,
        },
      },
    });
  });

  it('free-form values become anyOf scalars, free-form objects text, nested objects closed, unsupported formats dropped', () => {
    expect(
      toStrictJsonSchema({
        type: 'object',
        properties: {
          link: { type: 'string', format: 'uri' },
          value: {},
          list: { type: 'array', items: {} },
          window: { type: ['string', 'object'], title: 'WFWindow' },
          contact: {
            type: 'object',
            title: 'Contact',
            properties: { name: { type: 'string' }, age: { type: 'integer' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
        required: ['value', 'window'],
        additionalProperties: false,
      }),
    ).toEqual({
      type: 'object',
      properties: {
        link: { type: ['string', 'null'] },
        value: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
        list: {
          type: ['array', 'null'],
          items: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
        },
        window: { type: 'string', title: 'WFWindow' },
        contact: {
          type: ['object', 'null'],
          title: 'Contact',
          properties: { name: { type: 'string' }, age: { type: ['integer', 'null'] } },
          required: ['name', 'age'],
          additionalProperties: false,
        },
      },
      required: ['link', 'value', 'list', 'window', 'contact'],
      additionalProperties: false,
    });
  });
});
