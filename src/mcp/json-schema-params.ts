import type { Parameter, ParamType, ValueConstraints } from '../catalog/index.js';
import { InputInvalidError } from '../shared/index.js';

/** Where a schema comes from, for error messages: the server and the tool. */
export interface SchemaSource {
  server: string;
  tool: string;
  /** What errors name as the file (default `MCP server "<server>"`), e.g. an OpenAPI spec's path. */
  file?: string;
}

const fileOf = (src: SchemaSource): string => src.file ?? `MCP server "${src.server}"`;

type Schema = Record<string, unknown>;

/** Where a schema comes from, and what its `$ref`s resolve against. */
interface Context extends SchemaSource {
  root: Schema;
  /** The `$ref`s being expanded, outermost first: a ref met again is a recursive type. */
  refs: readonly string[];
}

const isRecord = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Keywords that combine or reference schemas: Apiary's parameter types have no equivalent. */
const UNSUPPORTED_KEYWORDS = ['allOf', 'not', 'if', 'patternProperties'] as const;

const NUMBER_BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;
const STRING_BOUNDS = ['minLength', 'maxLength'] as const;

const STRING_FORMATS: Record<string, ParamType> = {
  date: { kind: 'primitive', name: 'date' },
  'date-time': { kind: 'primitive', name: 'datetime' },
  uri: { kind: 'primitive', name: 'url' },
  url: { kind: 'primitive', name: 'url' },
};

/**
 * The schema's non-null types: `["string", "null"]` is an optional string, `["boolean", "string"]`
 * a union; `["null"]` alone stays `null` (no Apiary equivalent).
 */
function schemaTypes(schema: Schema, fail: (problem: string) => never): string[] | undefined {
  const t = schema.type;
  if (t === undefined) return undefined;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t) && t.length && t.every((x) => typeof x === 'string')) {
    const types = [...new Set(t.filter((x) => x !== 'null'))];
    return types.length ? types : ['null'];
  }
  return fail(`"type" must be a string or a non-empty list of strings, got ${JSON.stringify(t)}`);
}

/** The bounds of a number or a string (draft-04's boolean `exclusiveMinimum` made a number). */
function constraintsOf(schema: Schema, type: string): ValueConstraints | undefined {
  const c: ValueConstraints = {};
  if (type === 'integer' || type === 'number') {
    for (const k of NUMBER_BOUNDS) if (typeof schema[k] === 'number') c[k] = schema[k] as number;
    if (schema.exclusiveMinimum === true && typeof schema.minimum === 'number') {
      c.exclusiveMinimum = schema.minimum;
      delete c.minimum;
    }
    if (schema.exclusiveMaximum === true && typeof schema.maximum === 'number') {
      c.exclusiveMaximum = schema.maximum;
      delete c.maximum;
    }
  } else if (type === 'string') {
    for (const k of STRING_BOUNDS)
      if (Number.isInteger(schema[k]) && (schema[k] as number) >= 0) c[k] = schema[k] as number;
    if (typeof schema.pattern === 'string') c.pattern = schema.pattern;
  }
  return Object.keys(c).length ? c : undefined;
}

/** A primitive type with the schema's bounds, when it has any. */
function bounded(type: ParamType, schema: Schema, jsonType: string): ParamType {
  if (type.kind !== 'primitive') return type;
  const constraints = constraintsOf(schema, jsonType);
  return constraints ? { ...type, constraints } : type;
}

const isNullSchema = (s: unknown): boolean => isRecord(s) && s.type === 'null';

/**
 * Several types as one: string enums merge into one enum, nested unions flatten, the same type
 * twice counts once; a single type is itself.
 */
function unionOf(types: ParamType[]): ParamType {
  const flat = types.flatMap((t) => (t.kind === 'union' ? t.types : [t]));
  if (flat.every((t) => t.kind === 'enum'))
    return {
      kind: 'enum',
      values: [...new Set(flat.flatMap((t) => t.values.map((v) => v.value)))].map((value) => ({ value })),
    };
  const unique: ParamType[] = [];
  const seen = new Set<string>();
  for (const t of flat) {
    const key = JSON.stringify(t);
    if (!seen.has(key)) unique.push(t);
    seen.add(key);
  }
  return unique.length === 1 ? unique[0]! : { kind: 'union', types: unique };
}

function typeOf(schema: unknown, path: string, src: Context): ParamType {
  const fail = (problem: string): never => {
    throw new InputInvalidError({ file: fileOf(src), record: src.tool, field: path }, problem);
  };
  if (schema === true || (isRecord(schema) && Object.keys(schema).length === 0))
    return { kind: 'primitive', name: 'any' };
  if (!isRecord(schema)) return fail(`the schema must be an object, got ${JSON.stringify(schema)}`);
  if ('$ref' in schema) return refType(schema, path, src, fail);
  for (const k of UNSUPPORTED_KEYWORDS) if (k in schema) fail(`"${k}" schemas are not supported`);
  for (const k of ['anyOf', 'oneOf'] as const)
    if (k in schema) {
      const branches = schema[k];
      if (!Array.isArray(branches) || branches.length === 0) fail(`"${k}" must be a non-empty list`);
      // A `null` branch makes the value optional, as `["x", "null"]` does.
      const kept = (branches as unknown[]).filter((b) => !isNullSchema(b));
      if (!kept.length) fail(`"${k}" allows only null`);
      // The keywords beside anyOf (`type`, bounds) apply to every branch.
      const { [k]: _, ...beside } = schema;
      const shared = Object.fromEntries(
        Object.entries(beside).filter(([key]) => !['description', 'default', 'title'].includes(key)),
      );
      return unionOf(kept.map((b) => typeOf(isRecord(b) ? { ...shared, ...b } : b, path, src)));
    }
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
  const types = schemaTypes(schema, fail);
  if (types && types.length > 1) return unionOf(types.map((type) => typeOf({ ...schema, type }, path, src)));
  const type = types?.[0];
  switch (type) {
    case undefined:
      return isRecord(schema.properties) ? objectType(schema, path, src) : { kind: 'primitive', name: 'any' };
    case 'string':
      return bounded(
        STRING_FORMATS[String(schema.format)] ?? { kind: 'primitive', name: 'string' },
        schema,
        type,
      );
    case 'integer':
    case 'number':
      return bounded({ kind: 'primitive', name: type }, schema, type);
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

/** The schema a local JSON Pointer (`#/$defs/Item`) names in the root, or undefined. */
function pointerTarget(root: Schema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * A local `$ref` (what pydantic and zod-to-json-schema write for shared shapes) is the schema it
 * points at, with the keywords beside it; a ref inside its own expansion is a recursive type,
 * which stops as an entity without fields.
 */
function refType(schema: Schema, path: string, src: Context, fail: (problem: string) => never): ParamType {
  const { $ref: ref, ...beside } = schema;
  if (typeof ref !== 'string' || !ref.startsWith('#'))
    return fail(`only "$ref"s inside the tool's schema (#/…) are supported, got ${JSON.stringify(ref)}`);
  if (src.refs.includes(ref)) return { kind: 'entity', name: ref.split('/').pop() || 'object' };
  const target = pointerTarget(src.root, ref);
  if (target === undefined) return fail(`"$ref" ${JSON.stringify(ref)} points at nothing in the schema`);
  const inner = { ...src, refs: [...src.refs, ref] };
  if (!isRecord(target)) return typeOf(target, path, inner);
  const named = typeof target.title === 'string' ? target : { title: ref.split('/').pop(), ...target };
  return typeOf({ ...named, ...beside }, path, inner);
}

function objectType(schema: Schema, path: string, src: Context): ParamType {
  const name =
    typeof schema.title === 'string' && schema.title ? schema.title : path.split('.').pop() || 'object';
  if (schema.properties === undefined) return { kind: 'entity', name };
  return { kind: 'entity', name, fields: propertiesOf(schema, path, src) };
}

function propertiesOf(schema: Schema, path: string, src: Context): Parameter[] {
  const props = schema.properties;
  if (!isRecord(props))
    throw new InputInvalidError(
      { file: fileOf(src), record: src.tool, field: path || 'properties' },
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
 * `date`, `date-time` and `uri` formats, lengths and pattern), numbers and integers (with their
 * bounds), booleans, string enums, arrays, nested objects, unions (`type` lists, `anyOf`,
 * `oneOf`) and local `$ref`s (`#/$defs/…`) convert; `allOf`, `not`, `if`, `patternProperties`,
 * outside refs and non-string enums throw an `InputInvalidError` naming the server, the tool and
 * the field.
 */
export function jsonSchemaToParameters(schema: unknown, source: SchemaSource): Parameter[] {
  const src: Context = { ...source, root: isRecord(schema) ? schema : {}, refs: [] };
  if (!isRecord(schema) || (schema.type !== undefined && schema.type !== 'object'))
    throw new InputInvalidError(
      { file: fileOf(src), record: src.tool, field: 'inputSchema' },
      `the input schema must be an object schema, got ${JSON.stringify(schema)?.slice(0, 80)}`,
    );
  for (const k of [...UNSUPPORTED_KEYWORDS, 'anyOf', 'oneOf', '$ref'])
    if (k in schema)
      throw new InputInvalidError(
        { file: fileOf(src), record: src.tool, field: 'inputSchema' },
        `"${k}" schemas are not supported`,
      );
  if (schema.properties === undefined) return [];
  return propertiesOf(schema, '', src);
}
