import { type AppCallResult, isContentResult } from '../apps/index.js';
import type { Step } from '../plan/index.js';

/** A named output of a finished step: its value, or why there is none. */
export type OutputSlot = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * The rows a result offers to named outputs: a list as is, a record as one row; content parts
 * offer the rows of their first `rows` part, else their `json` records (text, images and files
 * carry no named fields).
 */
export function resultRows(result: AppCallResult): Array<Record<string, unknown>> {
  if (Array.isArray(result)) return result;
  if (!isContentResult(result)) return [result];
  const rows = result.content.find((p) => p.type === 'rows');
  if (rows) return rows.rows;
  const records: Array<Record<string, unknown>> = [];
  for (const p of result.content)
    if (p.type === 'json' && p.value !== null && typeof p.value === 'object' && !Array.isArray(p.value))
      records.push(p.value as Record<string, unknown>);
  return records;
}

/**
 * How a call's result becomes the step's named outputs (the values later steps reference):
 *
 * - a search returns a list of rows: the outputs are the fields of the FIRST row (the
 *   option the app ranks first, as the benchmarks' gold plans assume); an empty list gives
 *   no outputs ("returned no row");
 * - a transactional call returns one record: the outputs are its fields;
 * - content parts: the first row of their first `rows` part, else their first `json` record;
 * - a field the row lacks falls back to the step's own resolved argument of the same name
 *   (SGD results echo their input slots, e.g. `number_of_seats` of a reservation);
 * - otherwise the output is missing, and a step that references it fails without running.
 *
 * Values are data only: nothing in them is ever interpreted as a call.
 */
export function selectOutputs(
  step: Step,
  result: AppCallResult,
  args: Record<string, unknown>,
): Map<string, OutputSlot> {
  const row = resultRows(result)[0];
  const out = new Map<string, OutputSlot>();
  for (const name of step.outputs) {
    if (row && Object.hasOwn(row, name) && row[name] !== undefined)
      out.set(name, { ok: true, value: row[name] });
    else if (row && Object.hasOwn(args, name)) out.set(name, { ok: true, value: args[name] });
    else
      out.set(name, {
        ok: false,
        reason: row
          ? `${step.id} (${step.app}.${step.api}) returned a row without "${name}"`
          : `${step.id} (${step.app}.${step.api}) returned no row`,
      });
  }
  return out;
}

/** The outputs that have values, as a plain record. */
export function outputValues(slots: Map<string, OutputSlot>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, slot] of slots) if (slot.ok) out[name] = slot.value;
  return out;
}
