import type { Api, Parameter, ParamType } from '../schema.js';

export type JsonSchema = Record<string, unknown>;

const PRIMITIVE_SCHEMAS: Record<string, JsonSchema> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  time: { type: 'string', pattern: '^\\d{2}:\\d{2}$' },
  datetime: { type: 'string', format: 'date-time' },
  url: { type: 'string', format: 'uri' },
  file: { type: 'string', description: 'file path or reference' },
  image: { type: 'string', description: 'image path or reference' },
  any: {},
};

/** JSON Schema (draft 2020-12 subset that OpenAI function calling accepts) of one parameter type. */
function paramTypeToJsonSchema(type: ParamType): JsonSchema {
  switch (type.kind) {
    case 'primitive':
      return { ...PRIMITIVE_SCHEMAS[type.name], ...type.constraints };
    case 'union':
      return { anyOf: type.types.map(paramTypeToJsonSchema) };
    case 'enum':
      // Sources repeat values (ShortcutsBench's podcast properties list "Store URL" twice); OpenAI refuses repeats.
      return { type: 'string', enum: [...new Set(type.values.map((v) => v.value))] };
    case 'array':
      return { type: 'array', items: paramTypeToJsonSchema(type.items) };
    case 'entity':
      return type.fields
        ? { ...parametersToJsonSchema(type.fields), title: type.name }
        : { type: ['string', 'object'], title: type.name };
  }
}

function describe(p: Parameter): string | undefined {
  const labels = p.type.kind === 'enum' ? p.type.values.filter((v) => v.label) : [];
  const parts = [
    p.description,
    labels.length ? labels.map((v) => `${v.value}: ${v.label}`).join('; ') : undefined,
  ];
  const text = parts.filter(Boolean).join(' ');
  return text || undefined;
}

/** An object schema over named parameters; `required` lists the required ones in order. */
function parametersToJsonSchema(params: readonly Parameter[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const p of params) {
    const schema = paramTypeToJsonSchema(p.type);
    const description = describe(p);
    if (description) schema.description = description;
    if (p.default !== undefined) schema.default = p.default;
    properties[p.name] = schema;
  }
  return {
    type: 'object',
    properties,
    // A name a source declares twice (57 ToolBench APIs) is required once: OpenAI refuses repeats.
    required: [...new Set(params.filter((p) => p.required).map((p) => p.name))],
    additionalProperties: false,
  };
}

export function apiInputJsonSchema(api: Api): JsonSchema {
  return parametersToJsonSchema(api.parameters);
}
