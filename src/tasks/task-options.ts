import { z } from 'zod';
import { ApiaryError } from '../shared/index.js';
import type { OptionsSchema, TaskDefinition } from './task.js';

/** One option of a task or solver, as `apiary tasks` lists it. */
export interface OptionInfo {
  name: string;
  /** `integer`, `number`, `boolean`, `string`, `one of a | b`, `list of …`, with `| null` when nullable. */
  type: string;
  description?: string;
  /** The default value (absent when the option has none). */
  default?: unknown;
  required: boolean;
}

interface JsonSchemaNode {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchemaNode[];
  items?: JsonSchemaNode;
  description?: string;
  default?: unknown;
}

function propertiesOf(schema: OptionsSchema): { props: Record<string, JsonSchemaNode>; required: string[] } {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, JsonSchemaNode>;
    required?: string[];
  };
  return { props: json.properties ?? {}, required: json.required ?? [] };
}

/** The alternatives of a node (a nullable option is `anyOf: [T, null]`). */
function variants(node: JsonSchemaNode): JsonSchemaNode[] {
  if (node.anyOf) return node.anyOf.flatMap(variants);
  if (Array.isArray(node.type)) return node.type.map((type) => ({ ...node, type }));
  return [node];
}

function typeName(node: JsonSchemaNode): string {
  return variants(node)
    .map((v) => {
      if (v.enum) return `one of ${v.enum.map(String).join(' | ')}`;
      if (v.type === 'array') return `list of ${v.items ? typeName(v.items) : 'values'} (comma-separated)`;
      return v.type ?? 'value';
    })
    .join(' | ');
}

/** The options of a schema, in declaration order. */
export function describeOptions(schema: OptionsSchema): OptionInfo[] {
  const { props, required } = propertiesOf(schema);
  return Object.entries(props).map(([name, node]) => ({
    name,
    type: typeName(node),
    ...(node.description ? { description: node.description } : {}),
    ...('default' in node ? { default: node.default } : {}),
    required: required.includes(name) && !('default' in node),
  }));
}

function coerceScalar(node: JsonSchemaNode, raw: string): unknown {
  const kinds = new Set(variants(node).map((v) => v.type));
  if (kinds.has('null') && raw === 'null') return null;
  if ((kinds.has('integer') || kinds.has('number')) && raw.trim() !== '' && Number.isFinite(Number(raw)))
    return Number(raw);
  if (kinds.has('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/** A command-line string turned into the option's type (lists split on commas); zod then validates. */
function coerce(node: JsonSchemaNode, raw: string): unknown {
  const list = variants(node).find((v) => v.type === 'array');
  if (list && !(raw === 'null' && variants(node).some((v) => v.type === 'null')))
    return raw
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
      .map((x) => (list.items ? coerceScalar(list.items, x) : x));
  return coerceScalar(node, raw);
}

/**
 * Validates option values against a schema (defaults filled in). String values from the command
 * line are coerced first. Errors are USAGE errors naming the option: `appbench option "shots": …`.
 */
export function validateOptions(
  schema: OptionsSchema,
  values: Record<string, unknown>,
  owner: string,
): Record<string, unknown> {
  const { props } = propertiesOf(schema);
  const known = Object.keys(props);
  for (const key of Object.keys(values))
    if (!known.includes(key))
      throw new ApiaryError(
        'USAGE',
        `${owner} has no option "${key}" (options: ${known.length ? known.join(', ') : 'none'})`,
      );
  const input: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(values))
    input[key] = typeof v === 'string' && props[key] ? coerce(props[key], v) : v;
  const result = schema.safeParse(input);
  if (result.success) return result.data as Record<string, unknown>;
  const issue = result.error.issues[0]!;
  const name = issue.path.map(String).join('.') || '(options)';
  throw new ApiaryError('USAGE', `${owner} option "${name}": ${issue.message}`, { cause: result.error });
}

/** `key=value` strings (from `--option`) as pairs; `task.key` / `solver.key` pick the side. */
export function parseOptionAssignments(pairs: readonly string[]): Array<{ key: string; value: string }> {
  return pairs.map((p) => {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new ApiaryError('USAGE', `--option expects key=value, got "${p}"`);
    return { key: p.slice(0, eq).trim(), value: p.slice(eq + 1) };
  });
}

/**
 * Sends each `--option key=value` to the task's or the solver's options (by which schema has the
 * key; `task.` / `solver.` prefixes force a side). Unknown keys name both option lists.
 */
export function routeOptions(
  def: TaskDefinition,
  solver: string,
  assignments: ReadonlyArray<{ key: string; value: unknown }>,
): { task: Record<string, unknown>; solver: Record<string, unknown> } {
  const taskKeys = Object.keys(propertiesOf(def.options).props);
  const solverSchema = def.solvers[solver]?.options;
  const solverKeys = solverSchema ? Object.keys(propertiesOf(solverSchema).props) : [];
  const out = { task: {} as Record<string, unknown>, solver: {} as Record<string, unknown> };
  for (const { key, value } of assignments) {
    if (key.startsWith('task.')) out.task[key.slice(5)] = value;
    else if (key.startsWith('solver.')) out.solver[key.slice(7)] = value;
    else if (solverKeys.includes(key)) out.solver[key] = value;
    else if (taskKeys.includes(key)) out.task[key] = value;
    else
      throw new ApiaryError(
        'USAGE',
        `unknown option "${key}" for ${def.name} with solver ${solver} (task options: ${
          taskKeys.join(', ') || 'none'
        }; solver options: ${solverKeys.join(', ') || 'none'})`,
      );
  }
  return out;
}
