import type { Catalog } from '../../../catalog/index.js';
import { indexCatalog } from '../../../catalog/index.js';
import { appBenchApiOfSgd, isAppBenchSgdService } from '../catalog.js';
import type { AppBenchRecord } from '../record.js';
import type { SgdCall, SgdSourceDialogue } from './sgd-source.js';

/** One call of a planning path: an AppBench API with the SGD call it came from. */
export interface PathCall {
  app: string;
  api: string;
  /** Which part of a composed sample it belongs to (one dialogue = one part). */
  part: number;
  call: SgdCall;
}

/**
 * When an argument becomes a reference to an earlier call's output (docs/appbench.md, "Building
 * your own data"):
 * - `value`: the latest earlier call of the same dialogue that returns an output of that name
 *   returned this very value in its first row (the paper's rule, the value came from there; the
 *   first row because that is the row a reference reads when the plan runs);
 * - `name`: an earlier call of the sample returns an output of that name, whatever its value
 *   (what the released records do, even across the dialogues of an MS sample).
 */
export type ReferenceRule = 'value' | 'name';
export const REFERENCE_RULES: readonly ReferenceRule[] = ['value', 'name'];

/** Why a dialogue gives no path. */
export type PathRejection =
  | 'no-call'
  | 'other-service'
  | 'no-result'
  | 'unparseable-value'
  | 'underscore-api';

/**
 * What a repeated API keeps: `all` its calls, in order, as the released records do (a refined
 * search, a booking retried after it failed); `last` only its last call, at that call's position
 * (what the user settled on).
 */
export type RepeatRule = 'all' | 'last';
export const REPEAT_RULES: readonly RepeatRule[] = ['all', 'last'];

export interface PathOptions {
  catalog: Catalog;
  repeats: RepeatRule;
  /** Which part of a composed sample the dialogue is (default 0). */
  part?: number;
}

/**
 * The calls of a dialogue that make its planning path, in execution order, or why there is none:
 * - every service of the dialogue must be an AppBench App (otherwise the instruction would ask for
 *   things the path cannot do), and at least one call made;
 * - repeated APIs as `repeats` says;
 * - every search returned a row (a path whose search finds nothing does not execute); a booking
 *   may have failed only when it is retried later in the path;
 * - no value holds `", "` or `)`, and no API name a `_`, which the official parser cannot read.
 */
export function dialoguePath(
  dialogue: SgdSourceDialogue,
  o: PathOptions,
): { calls: PathCall[] } | { rejected: PathRejection; detail: string } {
  if (!dialogue.calls.length) return { rejected: 'no-call', detail: 'no SYSTEM turn calls a service' };
  const foreign = dialogue.services.find((s) => !isAppBenchSgdService(s));
  if (foreign) return { rejected: 'other-service', detail: `${foreign} is not an AppBench App` };
  const mapped: PathCall[] = [];
  for (const call of dialogue.calls) {
    const target = appBenchApiOfSgd(call.service, call.intent);
    if (!target)
      return { rejected: 'other-service', detail: `${call.service}.${call.intent} is not an AppBench API` };
    // the official scorer cuts an API name at its first "_" (docs/appbench.md, quirk 2): the
    // Services APIs (find_stylist_provider, …) would all read as one API
    if (target.api.includes('_'))
      return {
        rejected: 'underscore-api',
        detail: `${target.app}.${target.api}: the official scorer cannot tell it apart`,
      };
    mapped.push({ ...target, part: o.part ?? 0, call });
  }
  const same = (a: PathCall, b: PathCall) => a.api === b.api && a.app === b.app;
  const calls =
    o.repeats === 'all'
      ? mapped
      : mapped.filter((c, i) => !mapped.slice(i + 1).some((later) => same(later, c)));
  const index = indexCatalog(o.catalog);
  for (const [i, c] of calls.entries()) {
    const retried =
      index.api(c.app, c.api)?.transactional && calls.slice(i + 1).some((later) => same(later, c));
    if (!c.call.results.length && !retried)
      return { rejected: 'no-result', detail: `${c.app}.${c.api} at turn ${c.call.turn} returned no row` };
    for (const [k, v] of Object.entries(c.call.params))
      if (v.includes(', ') || v.includes(')'))
        return { rejected: 'unparseable-value', detail: `${c.api}.${k} = '${v}'` };
  }
  return { calls };
}

/**
 * The AppBench record of a planning path (instruction left empty): the fields of the released
 * files, arguments sorted by name as they are, each value either the quoted literal of the SGD
 * call or the bare name of an earlier call's output (see {@link ReferenceRule}).
 */
export function pathRecord(
  calls: readonly PathCall[],
  catalog: Catalog,
  rule: ReferenceRule,
): AppBenchRecord {
  const index = indexCatalog(catalog);
  const outputsOf = (c: PathCall) => (index.api(c.app, c.api)?.outputs ?? []).map((o) => o.name);
  const usedApi: AppBenchRecord['output']['used_api'] = [];
  const resultArguments: string[][] = [];
  const apiResults: string[] = [];
  const userAware: Record<string, string> = {};
  calls.forEach((c, i) => {
    const names = Object.keys(c.call.params).sort();
    const args = names.map((name) => {
      const value = c.call.params[name]!;
      const isRef = referenceFrom(calls.slice(0, i), c, name, value, outputsOf, rule);
      if (!isRef) userAware[name] = value;
      return `#${name}=${isRef ? name : `'${value}'`}`;
    });
    const outs = outputsOf(c);
    usedApi.push({ [c.api]: Object.fromEntries(names.map((n) => [n, c.call.params[n]!])) });
    resultArguments.push(outs);
    apiResults.push(`${outs.join(', ')} = ${c.api}(${args.join(', ')})`);
  });
  return {
    input: '',
    output: {
      used_app: calls.map((c) => c.app),
      used_api: usedApi,
      result_arguments: resultArguments,
      api_results: apiResults,
      middle_arguments: [...new Set(resultArguments.flat())],
      user_aware_arguments: userAware,
    },
  };
}

/** Whether argument `name` = `value` of `call` is a reference to an output of an `earlier` call. */
function referenceFrom(
  earlier: readonly PathCall[],
  call: PathCall,
  name: string,
  value: string,
  outputsOf: (c: PathCall) => string[],
  rule: ReferenceRule,
): boolean {
  if (rule === 'name') return earlier.some((e) => outputsOf(e).includes(name));
  // the bare name points at the latest call returning it: that call must have returned the value
  const producer = [...earlier].reverse().find((e) => outputsOf(e).includes(name));
  if (!producer || producer.part !== call.part) return false;
  // the executor reads a search's first row (src/exec/step-outputs.ts): only there does the
  // reference give back the value the dialogue used
  return producer.call.results[0]?.[name] === value;
}
