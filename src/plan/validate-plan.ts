import type { Catalog } from '../catalog/index.js';
import {
  type Api,
  acceptedParameters,
  type CatalogIndex,
  indexCatalog,
  missingRequiredParameters,
  type ParamType,
  type PrimitiveTypeName,
  type ValueConstraints,
} from '../catalog/index.js';
import { findCycle } from './graph.js';
import type { ArgValue, Plan, Step } from './schema.js';

export type PlanIssueCode =
  | 'duplicate-step'
  | 'unknown-app'
  | 'unknown-api'
  | 'api-not-owned'
  | 'missing-argument'
  | 'unknown-argument'
  | 'enum-value'
  | 'type-mismatch'
  | 'dangling-ref'
  | 'unknown-output'
  | 'cycle';

/** One problem in a plan: which step and argument, and why. */
export interface PlanIssue {
  code: PlanIssueCode;
  step?: string;
  field?: string;
  message: string;
}

/** Does a literal fit a parameter type? Values may be strings (MetaBench writes every value quoted). */
export function literalFits(value: string | number | boolean | null, type: ParamType): boolean {
  if (value === null) return true;
  switch (type.kind) {
    case 'union':
      return type.types.some((t) => literalFits(value, t));
    case 'enum':
      return type.values.some((v) => v.value === String(value));
    case 'array':
    case 'entity':
      return true;
    case 'primitive':
      return primitiveFits(value, type.name) && withinConstraints(value, type.constraints);
  }
}

/** Numeric bounds for numbers (and numeric strings), length and pattern for strings. */
function withinConstraints(value: string | number | boolean, c: ValueConstraints | undefined): boolean {
  if (!c || typeof value === 'boolean') return true;
  const n = Number(value);
  if (typeof value === 'number' || (value.trim() !== '' && Number.isFinite(n))) {
    if (c.minimum !== undefined && n < c.minimum) return false;
    if (c.maximum !== undefined && n > c.maximum) return false;
    if (c.exclusiveMinimum !== undefined && n <= c.exclusiveMinimum) return false;
    if (c.exclusiveMaximum !== undefined && n >= c.exclusiveMaximum) return false;
  }
  if (typeof value === 'string') {
    // JSON Schema counts code points, not UTF-16 units.
    const length = [...value].length;
    if (c.minLength !== undefined && length < c.minLength) return false;
    if (c.maxLength !== undefined && length > c.maxLength) return false;
    if (c.pattern !== undefined && !patternMatches(c.pattern, value)) return false;
  }
  return true;
}

/** A pattern that is not a valid ECMAScript regular expression constrains nothing. */
function patternMatches(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true;
  }
}

function primitiveFits(value: string | number | boolean, name: PrimitiveTypeName): boolean {
  const s = String(value);
  switch (name) {
    case 'integer':
      return typeof value === 'number' ? Number.isInteger(value) : /^-?\d+$/.test(s);
    case 'number':
      return (
        typeof value === 'number' ||
        (typeof value === 'string' && s.trim() !== '' && Number.isFinite(Number(s)))
      );
    case 'boolean':
      return typeof value === 'boolean' || /^(true|false)$/i.test(s);
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s));
    case 'time':
      return typeof value === 'string' && /^([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/.test(s);
    case 'string':
      return typeof value !== 'boolean';
    default:
      return true;
  }
}

/** How a type is named in messages: `integer`, `one of 'a', 'b'`, `array`, or the entity name. */
export function typeLabel(type: ParamType): string {
  if (type.kind === 'primitive')
    return type.constraints ? `${type.name} ${constraintsLabel(type.constraints)}` : type.name;
  if (type.kind === 'union') return type.types.map(typeLabel).join(' or ');
  if (type.kind === 'enum') return `one of ${type.values.map((v) => `'${v.value}'`).join(', ')}`;
  if (type.kind === 'array') return 'array';
  return type.name;
}

/** `(minimum 1, pattern ^a)`: the bounds a value must keep, as JSON Schema names them. */
function constraintsLabel(c: ValueConstraints): string {
  return `(${Object.entries(c)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')})`;
}

/** Two primitive types that cannot carry each other's values (strings take anything). */
function incompatible(from: ParamType, to: ParamType): boolean {
  if (from.kind !== 'primitive' || to.kind !== 'primitive') return false;
  if (from.name === to.name || to.name === 'string' || to.name === 'any' || from.name === 'any') return false;
  const numeric = new Set(['integer', 'number']);
  if (numeric.has(from.name) && numeric.has(to.name)) return false;
  return true;
}

function checkArgument(
  step: Step,
  api: Api,
  name: string,
  value: ArgValue,
  steps: Map<string, Step>,
  index: CatalogIndex,
  issues: PlanIssue[],
): void {
  const param = acceptedParameters(api).find((p) => p.name === name);
  if (!param) {
    issues.push({
      code: 'unknown-argument',
      step: step.id,
      field: name,
      message: `${api.app}.${api.name} has no parameter "${name}" (has: ${api.parameters.map((p) => p.name).join(', ') || 'none'})`,
    });
    return;
  }
  if (value.kind === 'literal') {
    if (!literalFits(value.value, param.type))
      issues.push({
        code: param.type.kind === 'enum' ? 'enum-value' : 'type-mismatch',
        step: step.id,
        field: name,
        message: `value ${JSON.stringify(value.value)} is not ${typeLabel(param.type)}`,
      });
    return;
  }
  if (value.kind !== 'ref') return;
  if (value.step === null) {
    issues.push({
      code: 'dangling-ref',
      step: step.id,
      field: name,
      message: `no earlier step returns "${value.output}"`,
    });
    return;
  }
  const producer = steps.get(value.step);
  if (!producer) {
    issues.push({
      code: 'dangling-ref',
      step: step.id,
      field: name,
      message: `reference to unknown step "${value.step}"`,
    });
    return;
  }
  if (!producer.outputs.includes(value.output)) {
    issues.push({
      code: 'unknown-output',
      step: step.id,
      field: name,
      message: `step ${producer.id} returns no "${value.output}" (returns: ${producer.outputs.join(', ') || 'nothing'})`,
    });
    return;
  }
  const producerOut = index.api(producer.app, producer.api)?.outputs.find((o) => o.name === value.output);
  if (producerOut && incompatible(producerOut.type, param.type))
    issues.push({
      code: 'type-mismatch',
      step: step.id,
      field: name,
      message: `${producer.id}.${value.output} is ${typeLabel(producerOut.type)}, parameter needs ${typeLabel(param.type)}`,
    });
}

/** Validates a plan against a catalog; returns every problem found (empty = valid). */
export function validatePlan(plan: Plan, catalog: Catalog | CatalogIndex): PlanIssue[] {
  const index = 'catalog' in catalog && 'apiById' in catalog ? catalog : indexCatalog(catalog as Catalog);
  const issues: PlanIssue[] = [];
  const steps = new Map<string, Step>();
  for (const step of plan.steps) {
    if (steps.has(step.id))
      issues.push({ code: 'duplicate-step', step: step.id, message: `step id "${step.id}" is used twice` });
    steps.set(step.id, step);
  }
  for (const step of plan.steps) {
    const app = index.app(step.app);
    if (!app) {
      issues.push({ code: 'unknown-app', step: step.id, field: 'app', message: `unknown app "${step.app}"` });
      continue;
    }
    const api = index.api(step.app, step.api);
    if (!api) {
      const owners = index.appsWithApi(step.api);
      issues.push(
        owners.length
          ? {
              code: 'api-not-owned',
              step: step.id,
              field: 'api',
              message: `app "${step.app}" does not own "${step.api}" (owned by ${owners.join(', ')})`,
            }
          : {
              code: 'unknown-api',
              step: step.id,
              field: 'api',
              message: `unknown API "${step.api}" in app "${step.app}"`,
            },
      );
      continue;
    }
    for (const p of missingRequiredParameters(api, (name) => name in step.args))
      issues.push({
        code: 'missing-argument',
        step: step.id,
        field: p.name,
        message: `required argument "${p.name}" is missing`,
      });
    for (const [name, value] of Object.entries(step.args))
      checkArgument(step, api, name, value, steps, index, issues);
  }
  const cycle = findCycle(plan);
  if (cycle)
    issues.push({
      code: 'cycle',
      step: cycle[0],
      message: `steps depend on each other in a cycle: ${cycle.join(' → ')}`,
    });
  return issues;
}
