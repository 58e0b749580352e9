import { type Api, type Catalog, indexCatalog } from '../catalog/index.js';
import { type ArgValue, literal, type Plan, printPlanText, type Step } from '../plan/index.js';
import type { ApiDemo, ApiDemoExample, TaskDemo } from './demo-selector.js';
import { normalizeInstruction } from './demo-selector.js';

/** A solved instruction: the material both knowledge-base levels are built from. */
export interface GoldTask {
  id: string;
  instruction: string;
  plan: Plan;
}

export interface TaskDemoOptions {
  /** Instructions left out of the knowledge base (e.g. the sample being solved). */
  exclude?: readonly string[];
  /** Reply text of a plan (default `printPlanText`: `App: [outs = api(#k='v')]` lines). */
  printReply?: (plan: Plan) => string;
}

function excluder(exclude: readonly string[] | undefined): (instruction: string) => boolean {
  const set = new Set((exclude ?? []).map(normalizeInstruction));
  return (instruction) => set.has(normalizeInstruction(instruction));
}

function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}

/** Task-level demos: one per gold task, in input order. */
export function buildTaskDemos(
  tasks: readonly GoldTask[],
  catalog: Catalog,
  opts: TaskDemoOptions = {},
): TaskDemo[] {
  const index = indexCatalog(catalog);
  const excluded = excluder(opts.exclude);
  const print = opts.printReply ?? printPlanText;
  return tasks
    .filter((t) => !excluded(t.instruction))
    .map((t) => ({
      id: t.id,
      instruction: t.instruction,
      reply: print(t.plan),
      apps: unique(t.plan.steps.map((s) => s.app)),
      apis: unique(t.plan.steps.map((s) => index.api(s.app, s.api)?.id ?? `${s.app}.${s.api}`)),
    }));
}

/**
 * Prints a plan like `printPlanText` but with API names written `App_api`, the form the
 * AppBench agents' prompt asks for: `Rents: [car_name = Rents_getcarsavailable(#city='Oslo')]`.
 * `parsePlanText` strips the prefix again.
 */
export function printAppPrefixedPlan(plan: Plan): string {
  const lines = printPlanText(plan).split('\n');
  if (lines.length !== plan.steps.length) return lines.join('\n'); // a literal holding a line break
  return plan.steps
    .map((step, i) => {
      const line = lines[i]!;
      // printPlanText already writes an API whose own name starts with `App_` prefixed
      if (step.api.startsWith(`${step.app}_`)) return line;
      const head = `${step.app}: [${step.outputs.length ? `${step.outputs.join(', ')} = ` : ''}`;
      return `${head}${step.app}_${line.slice(head.length)}`;
    })
    .join('\n');
}

export interface ApiDemoOptions {
  /** Instructions whose gold steps are not used as examples. */
  exclude?: readonly string[];
  /** Reply text of a one-step plan (default `printPlanText`). */
  printReply?: (plan: Plan) => string;
  /** Gold examples kept per API (default 3); a synthetic example always follows them. */
  maxGoldExamples?: number;
}

/** The user turn of an API-level demo. */
function apiDemoInstruction(api: Api): string {
  const desc = api.description.replace(/\s+/g, ' ').trim();
  return `Show an example call of ${api.app}.${api.name}${desc ? `: ${desc}` : ''}`;
}

/** Text embedded for the default API retrieval: app, API name (underscores as spaces), description. */
function apiDemoText(api: Api): string {
  return `${api.app} ${api.name.replace(/_/g, ' ')} ${api.description.replace(/\s+/g, ' ').trim()}`;
}

/**
 * A call of `api` with a placeholder literal `'<name>'` for every required parameter and the
 * API's declared outputs, e.g. `Weather: [temperature, city = getweather(#city='<city>')]`.
 */
function syntheticApiCall(api: Api, print: (plan: Plan) => string = printPlanText): string {
  const args: Record<string, ArgValue> = {};
  for (const p of api.parameters) if (p.required) args[p.name] = literal(`<${p.name}>`);
  const step: Step = { id: 's1', app: api.app, api: api.name, args, outputs: api.outputs.map((o) => o.name) };
  return print({ steps: [step] });
}

/** One gold step as a stand-alone call: references to earlier steps print as bare output names. */
function standaloneStep(step: Step, print: (plan: Plan) => string): { reply: string; literalOnly: boolean } {
  let literalOnly = true;
  const args: Record<string, ArgValue> = {};
  for (const [k, v] of Object.entries(step.args)) {
    if (v.kind === 'ref') {
      literalOnly = false;
      args[k] = { kind: 'ref', step: null, output: v.output };
    } else args[k] = v;
  }
  return { reply: print({ steps: [{ ...step, id: 's1', args }] }), literalOnly };
}

/**
 * API-level demos, one per catalog API in catalog order. Examples: up to `maxGoldExamples`
 * steps copied from gold plans (steps whose arguments are all literals first, then in task
 * order; identical calls once), then always a synthetic call with placeholders, so APIs no
 * gold plan uses (and queries whose own steps are the only gold ones) still get a demo.
 */
export function buildApiDemos(
  catalog: Catalog,
  tasks: readonly GoldTask[],
  opts: ApiDemoOptions = {},
): ApiDemo[] {
  const index = indexCatalog(catalog);
  const excluded = excluder(opts.exclude);
  const max = opts.maxGoldExamples ?? 3;
  const print = opts.printReply ?? printPlanText;
  const gold = new Map<string, Array<ApiDemoExample & { literalOnly: boolean }>>();
  for (const t of tasks) {
    if (excluded(t.instruction)) continue;
    for (const step of t.plan.steps) {
      const api = index.api(step.app, step.api);
      if (!api) continue;
      const { reply, literalOnly } = standaloneStep(step, print);
      const list = gold.get(api.id) ?? [];
      if (!list.some((e) => e.reply === reply))
        list.push({ reply, source: 'gold', from: t.instruction, literalOnly });
      gold.set(api.id, list);
    }
  }
  return catalog.apis.map((api) => {
    const found = gold.get(api.id) ?? [];
    const ordered = [...found.filter((e) => e.literalOnly), ...found.filter((e) => !e.literalOnly)];
    const examples: ApiDemoExample[] = ordered
      .slice(0, max)
      .map(({ reply, source, from }) => (from === undefined ? { reply, source } : { reply, source, from }));
    examples.push({ reply: syntheticApiCall(api, print), source: 'synthetic' });
    return { api: api.id, text: apiDemoText(api), instruction: apiDemoInstruction(api), examples };
  });
}
