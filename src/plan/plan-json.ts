import { z } from 'zod';
import { parseJsonText, parseWith, readTextFile } from '../shared/index.js';
import { parsePlanText } from './plan-text.js';
import { type Plan, PlanSchema, StepSchema } from './schema.js';

/** Parses the JSON form of a plan; errors name the file, the step index and the field. */
export function parsePlanJson(text: string, source = '<plan.json>'): Plan {
  const json = parseJsonText(text, source);
  const shell = parseWith(z.object({ steps: z.array(z.unknown()) }), json, { file: source });
  return {
    steps: shell.steps.map((s, i) => parseWith(StepSchema, s, { file: source, record: `steps[${i}]` })),
  };
}

export function printPlanJson(plan: Plan): string {
  return `${JSON.stringify(PlanSchema.parse(plan), null, 2)}\n`;
}

/** Reads a plan file: JSON when it starts with `{`, else plan text (one call per line). */
export function readPlanFile(path: string): Plan {
  // a Latin-1 plan read as UTF-8 would run with U+FFFD in its values: refuse it, naming the line
  const text = readTextFile(path, { strictUtf8: true });
  if (text.trimStart().startsWith('{')) return parsePlanJson(text, path);
  return parsePlanText(text, { source: path }).plan;
}
