import type { z } from 'zod';
import { InputInvalidError, type InputLocation } from './errors.js';

/** Renders a zod issue path (`['apis', 3, 'name']`) as `apis[3].name`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/**
 * Validates `value` with `schema`; on failure throws an InputInvalidError naming the file,
 * record and the field of the first issue (all issues are listed in the message).
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  loc: Omit<InputLocation, 'field'>,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const first = issues[0]!;
  // the first issue's path is already the location's field: name the paths of the others only
  const detail = issues
    .slice(0, 5)
    .map((i, n) => (n === 0 ? i.message : `${formatPath(i.path) || '(root)'}: ${i.message}`))
    .join('; ');
  throw new InputInvalidError({ ...loc, field: formatPath(first.path) || undefined }, detail, {
    cause: result.error,
  });
}
