/**
 * OpenAI's published rules for function (tool) definitions, as a checker: one bad definition in a
 * request fails the whole request with a 400, so exports are checked before anyone sends them.
 * Plain rules: name pattern, description length, parameters an object schema, no repeated enum values
 * or `required` entries. Strict mode (`strict: true`) adds: every object closed
 * (`additionalProperties: false`) with every property required, and only the supported keywords.
 */

const OPENAI_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const OPENAI_DESCRIPTION_MAX = 1024;

/** Keywords strict mode accepts in a schema (everything else is refused). */
export const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'description',
  'title',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
/** String formats strict mode accepts. */
export const STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

export type OpenAiRule =
  | 'name-pattern'
  | 'duplicate-name'
  | 'description-length'
  | 'parameters-object'
  | 'duplicate-enum'
  | 'duplicate-required'
  | 'strict-flag'
  | 'strict-additional-properties'
  | 'strict-all-required'
  | 'strict-keyword'
  | 'strict-format'
  | 'strict-type';

export interface OpenAiRuleViolation {
  /** The function name as written in the definition. */
  tool: string;
  rule: OpenAiRule;
  /** JSON path inside `function.parameters` (`$` is the root), or `name` / `description`. */
  path: string;
  message: string;
}

/** A definition as sent in a Chat Completions `tools` entry (read loosely: it is being checked). */
export interface OpenAiToolLike {
  type?: unknown;
  function: { name: unknown; description?: unknown; parameters?: unknown; strict?: unknown };
}

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Values that repeat in a list (JSON-equal), each once, in first-repeat order. */
function repeated(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  const twice = new Map<string, unknown>();
  for (const v of values) {
    const key = JSON.stringify(v);
    if (seen.has(key)) twice.set(key, v);
    else seen.add(key);
  }
  return [...twice.values()];
}

function typesOf(schema: Schema): string[] {
  const t = schema.type;
  return typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x) => typeof x === 'string') : [];
}

/** Walks every subschema of `schema` (properties, items, anyOf, $defs) with its JSON path. */
function walk(schema: Schema, path: string, visit: (s: Schema, path: string) => void): void {
  visit(schema, path);
  if (isObject(schema.properties))
    for (const [k, v] of Object.entries(schema.properties))
      if (isObject(v)) walk(v, `${path}.properties.${k}`, visit);
  if (isObject(schema.items)) walk(schema.items, `${path}.items`, visit);
  if (Array.isArray(schema.anyOf))
    schema.anyOf.forEach((v, i) => {
      if (isObject(v)) walk(v, `${path}.anyOf[${i}]`, visit);
    });
  if (isObject(schema.$defs))
    for (const [k, v] of Object.entries(schema.$defs)) if (isObject(v)) walk(v, `${path}.$defs.${k}`, visit);
}

function checkSchemaNode(
  s: Schema,
  path: string,
  strict: boolean,
  out: (rule: OpenAiRule, p: string, m: string) => void,
) {
  if (Array.isArray(s.enum))
    for (const v of repeated(s.enum))
      out('duplicate-enum', `${path}.enum`, `enum value ${JSON.stringify(v)} repeats`);
  if (Array.isArray(s.required))
    for (const v of repeated(s.required))
      out('duplicate-required', `${path}.required`, `required entry ${JSON.stringify(v)} repeats`);
  if (!strict) return;
  for (const key of Object.keys(s))
    if (!STRICT_KEYWORDS.has(key))
      out('strict-keyword', path, `keyword "${key}" is not supported in strict mode`);
  if (typeof s.format === 'string' && !STRICT_FORMATS.has(s.format))
    out('strict-format', path, `format "${s.format}" is not supported in strict mode`);
  const types = typesOf(s);
  if (!types.length && !('anyOf' in s) && !('$ref' in s) && !('enum' in s) && !('const' in s))
    out('strict-type', path, 'a schema needs a type (or anyOf, $ref, enum, const) in strict mode');
  for (const t of types)
    if (!JSON_TYPES.has(t)) out('strict-type', path, `type "${t}" is not a JSON Schema type`);
  if (types.filter((t) => t !== 'null').length > 1)
    out(
      'strict-type',
      path,
      'a union of types is written as anyOf in strict mode (a type list only adds "null")',
    );
  if (types.includes('object')) {
    if (s.additionalProperties !== false)
      out('strict-additional-properties', path, 'an object needs additionalProperties: false in strict mode');
    const props = isObject(s.properties) ? Object.keys(s.properties) : [];
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    const missing = props.filter((p) => !required.has(p));
    if (missing.length) out('strict-all-required', path, `properties not in required: ${missing.join(', ')}`);
  }
}

/** The rules one definition breaks (empty when OpenAI accepts it). `strict` defaults to the definition's own flag. */
export function checkOpenAiTool(def: OpenAiToolLike, opts: { strict?: boolean } = {}): OpenAiRuleViolation[] {
  const fn = def.function;
  const tool = typeof fn.name === 'string' ? fn.name : String(fn.name);
  const violations: OpenAiRuleViolation[] = [];
  const out = (rule: OpenAiRule, path: string, message: string) =>
    violations.push({ tool, rule, path, message });
  const strict = opts.strict ?? fn.strict === true;
  if (typeof fn.name !== 'string' || !OPENAI_NAME_PATTERN.test(fn.name))
    out('name-pattern', 'name', `name must match ${OPENAI_NAME_PATTERN.source}`);
  if (fn.description !== undefined && typeof fn.description !== 'string')
    out('description-length', 'description', 'description must be a string');
  else if (typeof fn.description === 'string' && fn.description.length > OPENAI_DESCRIPTION_MAX)
    out(
      'description-length',
      'description',
      `description has ${fn.description.length} characters (at most ${OPENAI_DESCRIPTION_MAX})`,
    );
  if (strict && fn.strict !== true) out('strict-flag', 'strict', 'a strict definition sets strict: true');
  const params = fn.parameters;
  if (params === undefined) return violations;
  if (!isObject(params) || params.type !== 'object') {
    out('parameters-object', '$', 'parameters must be a JSON Schema of type "object"');
    return violations;
  }
  walk(params, '$', (s, path) => checkSchemaNode(s, path, strict, out));
  return violations;
}

/** The rules a whole `tools` list breaks: each definition's, plus names used twice. */
export function checkOpenAiTools(
  defs: readonly OpenAiToolLike[],
  opts: { strict?: boolean } = {},
): OpenAiRuleViolation[] {
  const violations = defs.flatMap((d) => checkOpenAiTool(d, opts));
  const counts = new Map<unknown, number>();
  for (const d of defs) counts.set(d.function.name, (counts.get(d.function.name) ?? 0) + 1);
  for (const [name, n] of counts)
    if (n > 1)
      violations.push({
        tool: String(name),
        rule: 'duplicate-name',
        path: 'name',
        message: `${n} definitions are named "${String(name)}"`,
      });
  return violations;
}
