import { type Api, acceptedParameters, type ParamType } from '../catalog/index.js';

/** Primitive types whose JSON Schema is a string (`format` or `pattern` aside). */
const STRING_PRIMITIVES = new Set(['string', 'date', 'time', 'datetime', 'url', 'file', 'image']);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Does a value have the JSON type the advertised schema gives? Stricter than `dispatchCall`, which
 * takes the quoted values plans write (`"5"` for an integer, `5` for a string): an MCP client
 * sends typed JSON, so a number for a string parameter is its mistake, not a spelling. Bounds,
 * enums' values and missing or unknown arguments are left to `dispatchCall`.
 */
function hasJsonType(value: unknown, type: ParamType): boolean {
  switch (type.kind) {
    case 'primitive':
      if (type.name === 'any') return true;
      if (type.name === 'integer') return typeof value === 'number' && Number.isInteger(value);
      if (type.name === 'number') return typeof value === 'number';
      if (type.name === 'boolean') return typeof value === 'boolean';
      return STRING_PRIMITIVES.has(type.name) && typeof value === 'string';
    case 'enum':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value) && value.every((item) => hasJsonType(item, type.items));
    case 'entity':
      // Advertised as `["string", "object"]` without fields, as an object with them.
      return isRecord(value) || (!type.fields && typeof value === 'string');
    case 'union':
      return type.types.some((t) => hasJsonType(value, t));
  }
}

const JSON_TYPE_NAMES: Record<string, string> = {
  boolean: 'a boolean',
  number: 'a number',
  string: 'a string',
};

function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return JSON_TYPE_NAMES[typeof value] ?? 'an object';
}

/**
 * Why a client's arguments do not have the JSON types of the API's schema (one clause per
 * argument, e.g. `"location": a number where the schema says string`), or undefined. `null` is
 * taken for an optional argument (absent), as `dispatchCall` takes it.
 */
export function strictArgumentProblem(api: Api, args: Record<string, unknown>): string | undefined {
  const params = new Map(acceptedParameters(api).map((p) => [p.name, p]));
  const problems: string[] = [];
  for (const [name, value] of Object.entries(args)) {
    const param = params.get(name);
    if (!param || value === undefined || (value === null && !param.required)) continue;
    if (!hasJsonType(value, param.type))
      problems.push(`"${name}": ${jsonTypeName(value)} where the schema says ${schemaTypeName(param.type)}`);
  }
  return problems.length ? `invalid arguments for ${api.id}: ${problems.join('; ')}` : undefined;
}

/** The JSON type a parameter type is advertised as. */
function schemaTypeName(type: ParamType): string {
  switch (type.kind) {
    case 'primitive':
      return STRING_PRIMITIVES.has(type.name) ? 'string' : type.name;
    case 'enum':
      return 'string';
    case 'array':
      return `array of ${schemaTypeName(type.items)}`;
    case 'entity':
      return type.fields ? 'object' : 'string or object';
    case 'union':
      return type.types.map(schemaTypeName).join(' or ');
  }
}
