import { type Api, apiInputJsonSchema, type Catalog } from '../../catalog/index.js';
import {
  gbnfLiteral,
  JsonGrammarBuilder,
  type JsonSchemaGrammarOptions,
  type OutputConstraint,
} from '../../models/index.js';

/**
 * AppBench plan lines under a grammar: the reply is 1 to `maxLines` lines, each a call of one offered
 * API in the prompt's format (src/agents/prompts.ts), `App: [out1, out2 = App_api(#arg='value', #arg=dep)]`:
 * the API's returned arguments in order, its required arguments in declared order and any of its
 * optional ones (in declared order too), each a quoted literal of the parameter's type (enum
 * values, `pattern`, integer ranges…; booleans as Python's `True`/`False`) or, unquoted, a returned
 * argument of an offered API (a dependency). What it cannot check: that a dependency comes from an
 * earlier line (the plan validator does).
 */
export interface PlanLineGrammarOptions extends JsonSchemaGrammarOptions {
  /** Most lines of a plan (default 8). */
  maxLines?: number;
}

/** Characters a literal never holds: its quote, line breaks and what the official parser splits on. */
const LITERAL_EXCLUDED = "'\n\r()[]=,#";

function argumentsRule(
  b: JsonGrammarBuilder,
  api: Api,
  hint: string,
  dependency: string | undefined,
): string {
  const schema = apiInputJsonSchema(api);
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const pairs = api.parameters.map((p, i) => {
    const s = props[p.name] ?? {};
    const typed = s.type === 'boolean' ? { enum: ['True', 'False'] } : s;
    const literal = `"'" ${b.plainText(typed, `${hint}-${i}`, { excluded: LITERAL_EXCLUDED })} "'"`;
    const value = dependency ? `(${literal} | ${dependency})` : literal;
    return { required: p.required, pair: `${gbnfLiteral(`#${p.name}=`)} ${value}` };
  });
  // the same shape as JSON objects with optional properties: after[k] once a pair was written
  const after: string[] = new Array(pairs.length + 1).fill('');
  for (let k = pairs.length - 1; k >= 0; k--) {
    const item = `", " ${pairs[k]!.pair}`;
    after[k] = `${pairs[k]!.required ? item : `(${item})?`} ${after[k + 1]}`.trim();
  }
  let first = '';
  for (let k = pairs.length - 1; k >= 0; k--) {
    const withIt = `${pairs[k]!.pair} ${after[k + 1]}`.trim();
    first = b.rules.rule(
      `${hint}-from-${k}`,
      pairs[k]!.required || first === '' ? withIt : `${withIt} | ${first}`,
    );
  }
  if (first === '') return '';
  return pairs.some((p) => p.required) ? first : `(${first})?`;
}

/** The grammar of a plan over `catalog`'s APIs (only those of `apps` when given, as hierarchical prompting offers). */
export function planLineGrammar(
  catalog: Catalog,
  apps?: readonly string[],
  options: PlanLineGrammarOptions = {},
): string {
  const wanted = apps ? new Set(apps) : undefined;
  const offered = catalog.apps.filter((a) => !wanted || wanted.has(a.id) || wanted.has(a.name));
  const b = new JsonGrammarBuilder(options);
  const apis = offered.flatMap((app) =>
    catalog.apis.filter((a) => a.app === app.id).map((api) => ({ app, api })),
  );
  const outputs = [...new Set(apis.flatMap(({ api }) => api.outputs.map((o) => o.name)))];
  const dependency = outputs.length
    ? b.rules.rule('dependency', outputs.map((o) => gbnfLiteral(o)).join(' | '))
    : undefined;
  const calls = apis.map(({ app, api }, i) => {
    const hint = `call-${i}-${api.name}`;
    const returned = api.outputs.length ? api.outputs.map((o) => o.name).join(', ') : 'result';
    const args = argumentsRule(b, api, `${hint}-arg`, dependency);
    const head = gbnfLiteral(`${app.name}: [${returned} = ${app.name}_${api.name}(`);
    return b.rules.rule(hint, `${head} ${args} ${gbnfLiteral(')]')}`.replace(/ {2,}/g, ' '));
  });
  if (calls.length === 0) return b.grammar(gbnfLiteral('No plan.'));
  const line = b.rules.rule('line', calls.join(' | '));
  const maxLines = Math.max(1, options.maxLines ?? 8);
  return b.grammar(maxLines === 1 ? line : `${line} ("\\n" ${line}){0,${maxLines - 1}}`);
}

/** Constraints by catalog and App selection: a flat run asks for the same one every sample. */
const cache = new WeakMap<Catalog, Map<string, OutputConstraint>>();

/** {@link planLineGrammar} as the constraint a plan-lines turn carries (memoised per catalog and Apps). */
export function planLineConstraint(catalog: Catalog, apps?: readonly string[]): OutputConstraint {
  const byApps = cache.get(catalog) ?? new Map<string, OutputConstraint>();
  cache.set(catalog, byApps);
  const key = apps ? apps.join('\u0000') : '\u0001all';
  let constraint = byApps.get(key);
  if (!constraint) {
    if (byApps.size >= 64) byApps.clear(); // hierarchical prompting: one per App subset
    const grammar = planLineGrammar(catalog, apps, { maxLines: 8, maxStringLength: 64 });
    constraint = { name: 'appbench-plan-lines', grammar };
    byApps.set(key, constraint);
  }
  return constraint;
}

/**
 * Hierarchical prompting's App selection under a grammar: the prompt's `[app1, app2, ...]` with 1 to
 * `maxApps` App names of the catalog (src/agents/prompts.ts, `appSelectionPrompt`).
 */
export function appSelectionGrammar(catalog: Catalog, maxApps = 4): string {
  const b = new JsonGrammarBuilder();
  const app = b.rules.rule(
    'app',
    catalog.apps.map((a) => gbnfLiteral(a.name)).join(' | ') || gbnfLiteral('none'),
  );
  return b.grammar(`"[" ${app} (", " ${app}){0,${Math.max(0, maxApps - 1)}} "]"`);
}

const selections = new WeakMap<Catalog, OutputConstraint>();

/** {@link appSelectionGrammar} as a constraint (memoised per catalog). */
export function appSelectionConstraint(catalog: Catalog): OutputConstraint {
  let constraint = selections.get(catalog);
  if (!constraint) {
    constraint = { name: 'appbench-app-selection', grammar: appSelectionGrammar(catalog) };
    selections.set(catalog, constraint);
  }
  return constraint;
}
