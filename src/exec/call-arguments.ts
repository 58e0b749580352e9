import { type Api, acceptedParameters, missingRequiredParameters, type ParamType } from '../catalog/index.js';
import { literalFits, typeLabel } from '../plan/index.js';

/** A problem with one argument of a call (`field` is the parameter name). */
export interface ArgumentIssue {
  field: string;
  message: string;
}

/**
 * Does a run-time value fit a parameter type? Scalars follow plan validation exactly
 * (`literalFits`: numbers may be written as strings, `null` fits anything); a list fits a list
 * type item by item; a record fits a structured (entity) type; `any` takes every value.
 */
export function valueFits(value: unknown, type: ParamType): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return literalFits(value, type);
  if (type.kind === 'union') return type.types.some((t) => valueFits(value, t));
  if (type.kind === 'entity' || (type.kind === 'primitive' && type.name === 'any')) return true;
  if (Array.isArray(value))
    return type.kind === 'array' && value.every((item) => valueFits(item, type.items));
  return false;
}

/** A short JSON rendering of a value for messages (never throws). */
function previewValue(value: unknown, max = 80): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Checks call arguments against the API's parameters, with the rules and messages of plan
 * validation: required arguments first (parameter order), then unknown arguments and values
 * that do not fit (argument order). An argument whose value is `undefined` counts as absent.
 */
export function argumentIssues(api: Api, args: Record<string, unknown>): ArgumentIssue[] {
  const issues: ArgumentIssue[] = [];
  const params = new Map(acceptedParameters(api).map((p) => [p.name, p]));
  const given = (name: string) => Object.hasOwn(args, name) && args[name] !== undefined;
  for (const p of missingRequiredParameters(api, given))
    issues.push({ field: p.name, message: `required argument "${p.name}" is missing` });
  for (const [name, value] of Object.entries(args)) {
    const param = params.get(name);
    if (!param)
      issues.push({
        field: name,
        message: `${api.app}.${api.name} has no parameter "${name}" (has: ${api.parameters.map((p) => p.name).join(', ') || 'none'})`,
      });
    else if (value !== undefined && !valueFits(value, param.type))
      issues.push({ field: name, message: `value ${previewValue(value)} is not ${typeLabel(param.type)}` });
  }
  return issues;
}
