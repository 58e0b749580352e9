import type { JsonSchema } from './json-schema.js';
import { STRICT_FORMATS, STRICT_KEYWORDS } from './openai-rules.js';

/**
 * The strict-mode form of an input schema (OpenAI Structured Outputs for function calls): every
 * object closed and every property required, an optional property made nullable (the model writes
 * `null` for "not given"), and only the keywords strict mode supports. What strict mode cannot say
 * is folded into the description (a default) or narrowed (a free-form value or object).
 */
export function toStrictJsonSchema(schema: JsonSchema): JsonSchema {
  return strictNode(schema, false);
}

const SCALARS: JsonSchema[] = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }];

function typesOf(s: JsonSchema): string[] {
  return typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : [];
}

function strictNode(input: JsonSchema, nullable: boolean): JsonSchema {
  const s: JsonSchema = {};
  for (const [k, v] of Object.entries(input)) if (STRICT_KEYWORDS.has(k)) s[k] = v;
  if (typeof s.format === 'string' && !STRICT_FORMATS.has(s.format)) delete s.format;
  if (input.default !== undefined) {
    const note = `Default: ${JSON.stringify(input.default)}.`;
    s.description = typeof s.description === 'string' ? `${s.description} ${note}` : note;
  }

  let types = typesOf(s);
  // A free-form object cannot be closed: it is written as text (ToolBench OBJECT, entities without fields).
  if (types.includes('object') && !isRecord(s.properties)) {
    types = types.filter((t) => t !== 'object');
    if (!types.includes('string')) types.unshift('string');
  }
  const untyped = !types.length && !('anyOf' in s) && !('enum' in s) && !('const' in s) && !('$ref' in s);
  if (untyped || types.filter((t) => t !== 'null').length > 1) {
    // Any value, or a union of types: strict mode spells unions as anyOf.
    const members = untyped ? SCALARS : types.filter((t) => t !== 'null').map((type) => ({ type }));
    delete s.type;
    s.anyOf = members;
    types = [];
  } else if (types.length) s.type = types.length === 1 ? types[0] : types;

  const properties = s.properties;
  if (types.includes('object') && isRecord(properties)) {
    const required = new Set(Array.isArray(input.required) ? (input.required as string[]) : []);
    const closed = Object.fromEntries(
      Object.entries(properties).map(([k, v]) => [k, strictNode(v as JsonSchema, !required.has(k))]),
    );
    s.properties = closed;
    s.required = Object.keys(closed);
    s.additionalProperties = false;
  }
  if (isRecord(s.items)) s.items = strictNode(s.items, false);
  if (Array.isArray(s.anyOf)) s.anyOf = (s.anyOf as JsonSchema[]).map((m) => strictNode(m, false));
  return nullable ? nullableOf(s) : s;
}

function nullableOf(s: JsonSchema): JsonSchema {
  if (Array.isArray(s.anyOf)) {
    const members = s.anyOf as JsonSchema[];
    return members.some((m) => m.type === 'null') ? s : { ...s, anyOf: [...members, { type: 'null' }] };
  }
  const types = typesOf(s);
  if (!types.length || types.includes('null')) return s;
  const out: JsonSchema = { ...s, type: [...types, 'null'] };
  if (Array.isArray(s.enum)) out.enum = [...(s.enum as unknown[]), null];
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
