import type { Parameter, ParamType } from '../catalog/index.js';
import { InputInvalidError } from '../shared/index.js';

/** Where a schema comes from, for error messages: the server and the tool. */
export interface SchemaSource {
  server: string;
  tool: string;
}

type Schema = Record<string, unknown>;

const isRecord = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Keywords that combine or reference schemas: Apiary's parameter types have no equivalent. */
const UNSUPPORTED_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'not', '$ref', 'if', 'patternProperties'] as const;

const STRING_FORMATS: Record<string, ParamType> = {
  date: { kind: 'primitive', name: 'date' },
  'date-time': { kind: 'primitive', name: 'datetime' },
  uri: { kind: 'primitive', name: 'url' },
  url: { kind: 'primitive', name: 'url' },
};

/**
 * The schema's one non-null type: `["string", "null"]` is an optional string; several other types
 * have no Apiary equivalent.
 */
function singleType(schema: Schema, fail: (problem: string) => never): string | undefined {
  const t = schema.type;
  if (t === undefined) return undefined;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const types = t.filter((x) => x !== 'null');
    if (types.length === 1 && typeof types[0] === 'string') return types[0];
    if (types.length === 0) return 'null';
    fail(`a union of types (${t.join(', ')}) is not supported`);
  }
  fail(`"type" must be a string or a list of strings, got ${JSON.stringify(t)}`);
}

function typeOf(schema: unknown, path: string, src: SchemaSource): ParamType {
  const fail = (problem: string): never => {
    throw new InputInvalidError(
      { file: `MCP server "${src.server}"`, record: src.tool, field: path },
      problem,
    );
  };
  if (schema === true || (isRecord(schema) && Object.keys(schema).length === 0))
    return { kind: 'primitive', name: 'any' };
  if (!isRecord(schema)) return fail(`the schema must be an object, got ${JSON.stringify(schema)}`);
  for (const k of UNSUPPORTED_KEYWORDS) if (k in schema) fail(`"${k}" schemas are not supported`);
  if ('enum' in schema) {
    const values = schema.enum;
    if (!Array.isArray(values) || values.length === 0) fail('"enum" must be a non-empty list');
    if (!(values as unknown[]).every((v) => typeof v === 'string'))
      fail('only enums of strings are supported');
    return { kind: 'enum', values: (values as string[]).map((value) => ({ value })) };
  }
  if ('const' in schema) {
    if (typeof schema.const !== 'string') fail('only string constants are supported');
    return { kind: 'enum', values: [{ value: schema.const as string }] };
  }
  const type = singleType(schema, fail);
  switch (type) {
    case undefined:
      return isRecord(schema.properties) ? objectType(schema, path, src) : { kind: 'primitive', name: 'any' };
    case 'string':
      return STRING_FORMATS[String(schema.format)] ?? { kind: 'primitive', name: 'string' };
    case 'integer':
    case 'number':
    case 'boolean':
      return { kind: 'primitive', name: type };
    case 'array':
      return {
        kind: 'array',
        items:
          schema.items === undefined
            ? { kind: 'primitive', name: 'any' }
            : typeOf(schema.items, `${path}[]`, src),
      };
    case 'object':
      return objectType(schema, path, src);
    default:
      return fail(`type "${type}" is not supported`);
  }
}

function objectType(schema: Schema, path: string, src: SchemaSource): ParamType {
  const name =
    typeof schema.title === 'string' && schema.title ? schema.title : path.split('.').pop() || 'object';
  if (schema.properties === undefined) return { kind: 'entity', name };
  return { kind: 'entity', name, fields: propertiesOf(schema, path, src) };
}

function propertiesOf(schema: Schema, path: string, src: SchemaSource): Parameter[] {
  const props = schema.properties;
  if (!isRecord(props))
    throw new InputInvalidError(
      { file: `MCP server "${src.server}"`, record: src.tool, field: path || 'properties' },
      '"properties" must be an object',
    );
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [],
  );
  return Object.entries(props).map(([name, sub]) => {
    const field = path ? `${path}.${name}` : name;
    const param: Parameter = { name, type: typeOf(sub, field, src), required: required.has(name) };
    if (isRecord(sub)) {
      if (typeof sub.description === 'string' && sub.description) param.description = sub.description;
      if (sub.default !== undefined) param.default = sub.default;
    }
    return param;
  });
}

/**
 * An MCP tool's `inputSchema` (JSON Schema of an object) as catalog parameters. Strings (with the
 * `date`, `date-time` and `uri` formats), numbers, integers, booleans, string enums, arrays and
 * nested objects convert; combinators (`anyOf`, `$ref`, …), unions of types and non-string enums
 * throw an `InputInvalidError` naming the server, the tool and the field.
 */
export function jsonSchemaToParameters(schema: unknown, src: SchemaSource): Parameter[] {
  if (!isRecord(schema) || (schema.type !== undefined && schema.type !== 'object'))
    throw new InputInvalidError(
      { file: `MCP server "${src.server}"`, record: src.tool, field: 'inputSchema' },
      `the input schema must be an object schema, got ${JSON.stringify(schema)?.slice(0, 80)}`,
    );
  for (const k of UNSUPPORTED_KEYWORDS)
    if (k in schema)
      throw new InputInvalidError(
        { file: `MCP server "${src.server}"`, record: src.tool, field: 'inputSchema' },
        `"${k}" schemas are not supported`,
      );
  if (schema.properties === undefined) return [];
  return propertiesOf(schema, '', src);
}
