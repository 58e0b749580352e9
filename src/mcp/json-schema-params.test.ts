import { describe, expect, it } from 'vitest';
import { InputInvalidError } from '../shared/index.js';
import { jsonSchemaToParameters } from './json-schema-params.js';

const src = { server: 'srv', tool: 'tool1' };
const convert = (properties: Record<string, unknown>, required: string[] = []) =>
  jsonSchemaToParameters({ type: 'object', properties, required }, src);

describe('jsonSchemaToParameters', () => {
  it('converts primitives, formats, enums, arrays and nested objects', () => {
    expect(
      convert(
        {
          name: { type: 'string', description: 'who' },
          day: { type: 'string', format: 'date' },
          at: { type: 'string', format: 'date-time' },
          link: { type: 'string', format: 'uri' },
          n: { type: 'integer', default: 3 },
          x: { type: 'number' },
          ok: { type: ['boolean', 'null'] },
          color: { enum: ['red', 'green'] },
          fixed: { const: 'one' },
          tags: { type: 'array', items: { type: 'string' } },
          anything: {},
          list: { type: 'array' },
          where: {
            type: 'object',
            title: 'Place',
            properties: { city: { type: 'string' }, zip: { type: 'string' } },
            required: ['city'],
          },
          blob: { type: 'object' },
        },
        ['name', 'where'],
      ),
    ).toEqual([
      { name: 'name', type: { kind: 'primitive', name: 'string' }, required: true, description: 'who' },
      { name: 'day', type: { kind: 'primitive', name: 'date' }, required: false },
      { name: 'at', type: { kind: 'primitive', name: 'datetime' }, required: false },
      { name: 'link', type: { kind: 'primitive', name: 'url' }, required: false },
      { name: 'n', type: { kind: 'primitive', name: 'integer' }, required: false, default: 3 },
      { name: 'x', type: { kind: 'primitive', name: 'number' }, required: false },
      { name: 'ok', type: { kind: 'primitive', name: 'boolean' }, required: false },
      {
        name: 'color',
        type: { kind: 'enum', values: [{ value: 'red' }, { value: 'green' }] },
        required: false,
      },
      { name: 'fixed', type: { kind: 'enum', values: [{ value: 'one' }] }, required: false },
      {
        name: 'tags',
        type: { kind: 'array', items: { kind: 'primitive', name: 'string' } },
        required: false,
      },
      { name: 'anything', type: { kind: 'primitive', name: 'any' }, required: false },
      { name: 'list', type: { kind: 'array', items: { kind: 'primitive', name: 'any' } }, required: false },
      {
        name: 'where',
        type: {
          kind: 'entity',
          name: 'Place',
          fields: [
            { name: 'city', type: { kind: 'primitive', name: 'string' }, required: true },
            { name: 'zip', type: { kind: 'primitive', name: 'string' }, required: false },
          ],
        },
        required: true,
      },
      { name: 'blob', type: { kind: 'entity', name: 'blob' }, required: false },
    ]);
  });

  it('an object schema without properties has no parameters', () => {
    expect(jsonSchemaToParameters({ type: 'object' }, src)).toEqual([]);
  });

  const problem = (schema: unknown): string => {
    try {
      jsonSchemaToParameters(schema, src);
    } catch (error) {
      expect(error).toBeInstanceOf(InputInvalidError);
      return (error as Error).message;
    }
    return 'no error';
  };

  it('converts unions: type lists, anyOf and oneOf (null branches make the value optional)', () => {
    const params = jsonSchemaToParameters(
      {
        type: 'object',
        properties: {
          // @modelcontextprotocol/server-sequential-thinking's parameter
          isRevision: { type: ['boolean', 'string'], description: 'revises earlier thinking' },
          target: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'number' }, { type: 'null' }] },
          mode: { oneOf: [{ const: 'fast' }, { enum: ['slow', 'fast'] }] },
          limit: { anyOf: [{ type: 'integer' }, { type: 'null' }], minimum: 1 },
        },
        required: ['isRevision'],
      },
      src,
    );
    expect(params).toEqual([
      {
        name: 'isRevision',
        type: {
          kind: 'union',
          types: [
            { kind: 'primitive', name: 'boolean' },
            { kind: 'primitive', name: 'string' },
          ],
        },
        required: true,
        description: 'revises earlier thinking',
      },
      {
        name: 'target',
        type: {
          kind: 'union',
          types: [
            { kind: 'primitive', name: 'string', constraints: { minLength: 1 } },
            { kind: 'primitive', name: 'number' },
          ],
        },
        required: false,
      },
      {
        name: 'mode',
        type: { kind: 'enum', values: [{ value: 'fast' }, { value: 'slow' }] },
        required: false,
      },
      {
        name: 'limit',
        type: { kind: 'primitive', name: 'integer', constraints: { minimum: 1 } },
        required: false,
      },
    ]);
  });

  it('resolves local $refs (pydantic and zod-to-json-schema $defs); a recursive one stops as an entity', () => {
    const params = jsonSchemaToParameters(
      {
        type: 'object',
        $defs: {
          Level: { enum: ['low', 'high'] },
          Node: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              children: { type: 'array', items: { $ref: '#/$defs/Node' } },
            },
            required: ['name'],
          },
        },
        properties: {
          level: { $ref: '#/$defs/Level', description: 'how much' },
          tree: { anyOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }] },
        },
      },
      src,
    );
    expect(params).toEqual([
      {
        name: 'level',
        type: { kind: 'enum', values: [{ value: 'low' }, { value: 'high' }] },
        required: false,
        description: 'how much',
      },
      {
        name: 'tree',
        type: {
          kind: 'entity',
          name: 'Node',
          fields: [
            { name: 'name', type: { kind: 'primitive', name: 'string' }, required: true },
            {
              name: 'children',
              type: { kind: 'array', items: { kind: 'entity', name: 'Node' } },
              required: false,
            },
          ],
        },
        required: false,
      },
    ]);
  });

  it('keeps number bounds (draft-04 boolean exclusives too) and string lengths and patterns', () => {
    const params = jsonSchemaToParameters(
      {
        type: 'object',
        properties: {
          n: { type: 'integer', minimum: 1, maximum: 10 },
          x: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
          old: { type: 'number', minimum: 0, exclusiveMinimum: true },
          code: { type: 'string', minLength: 2, maxLength: 3, pattern: '^[A-Z]+$' },
          day: { type: 'string', format: 'date', pattern: '^2019' },
        },
      },
      src,
    );
    expect(params.map((p) => p.type)).toEqual([
      { kind: 'primitive', name: 'integer', constraints: { minimum: 1, maximum: 10 } },
      { kind: 'primitive', name: 'number', constraints: { exclusiveMinimum: 0, exclusiveMaximum: 1 } },
      { kind: 'primitive', name: 'number', constraints: { exclusiveMinimum: 0 } },
      { kind: 'primitive', name: 'string', constraints: { minLength: 2, maxLength: 3, pattern: '^[A-Z]+$' } },
      { kind: 'primitive', name: 'date', constraints: { pattern: '^2019' } },
    ]);
  });

  it('unsupported schemas name the server, the tool and the field', () => {
    expect(problem({ type: 'object', properties: { a: { allOf: [{ type: 'string' }] } } })).toBe(
      'MCP server "srv": record tool1: field "a": "allOf" schemas are not supported',
    );
    expect(problem({ type: 'object', properties: { a: { oneOf: [] } } })).toBe(
      'MCP server "srv": record tool1: field "a": "oneOf" must be a non-empty list',
    );
    expect(
      problem({
        type: 'object',
        properties: { a: { type: 'object', properties: { b: { type: 'array', items: { $ref: '#/x' } } } } },
      }),
    ).toBe('MCP server "srv": record tool1: field "a.b[]": "$ref" "#/x" points at nothing in the schema');
    expect(problem({ type: 'object', properties: { a: { $ref: 'https://example.org/s.json' } } })).toBe(
      'MCP server "srv": record tool1: field "a": only "$ref"s inside the tool\'s schema (#/…) are supported, got "https://example.org/s.json"',
    );
    expect(problem({ type: 'object', properties: { a: { type: [] } } })).toBe(
      'MCP server "srv": record tool1: field "a": "type" must be a string or a non-empty list of strings, got []',
    );
    expect(problem({ type: 'object', properties: { a: { enum: [1, 2] } } })).toBe(
      'MCP server "srv": record tool1: field "a": only enums of strings are supported',
    );
    expect(problem({ type: 'object', properties: { a: { type: 'null' } } })).toBe(
      'MCP server "srv": record tool1: field "a": type "null" is not supported',
    );
    expect(problem({ type: 'string' })).toBe(
      'MCP server "srv": record tool1: field "inputSchema": the input schema must be an object schema, got {"type":"string"}',
    );
    expect(problem({ type: 'object', properties: [] })).toBe(
      'MCP server "srv": record tool1: field "properties": "properties" must be an object',
    );
  });
});
