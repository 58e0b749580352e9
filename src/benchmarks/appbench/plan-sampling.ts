import type { AppHandler } from '../../apps/index.js';
import {
  type Api,
  type Catalog,
  type CatalogIndex,
  indexCatalog,
  type Parameter,
} from '../../catalog/index.js';
import {
  type AppRegistry,
  type ApprovalHandler,
  appRegistry,
  dispatchCall,
  isTransactionalCall,
  resultRows,
} from '../../exec/index.js';
import { literalFits } from '../../plan/index.js';
import { mulberry32, type Rand } from '../../shared/index.js';
import { APPBENCH_CATEGORIES, type AppBenchCategory, appBenchCategory } from './categories.js';

/**
 * Executable multi-call plans sampled over any catalog (docs/appbench.md, "Plans from your own
 * catalog"): each call is run through `dispatchCall` as it is chosen, so a later call can take an
 * earlier call's actual output (a field of its first row, as the plan scheduler reads it,
 * src/exec/step-outputs.ts) for a parameter of a compatible name and type. A plan is kept only when
 * every call succeeded with at least one row.
 */

/** A scalar the AppBench call grammar can carry as `'literal'` (docs/appbench.md, "Record format"). */
type Scalar = string | number | boolean;

export interface SampledArg {
  /** `literal`: a value the user gives; `ref`: the output `output` of call `from` (0-based). */
  kind: 'literal' | 'ref';
  value: Scalar;
  from?: number;
  output?: string;
}

export interface SampledCall {
  app: string;
  api: string;
  args: Record<string, SampledArg>;
  /** The first row's fields that a later call could reference, with their values. */
  outputs: Record<string, Scalar>;
}

export interface SampledPlan {
  category: AppBenchCategory;
  calls: SampledCall[];
}

/** User-given values by `app.api.param`, `api.param` or `param` (`--values FILE`). */
export type ValuePool = ReadonlyMap<string, readonly Scalar[]>;

export interface PlanSamplingOptions {
  catalog: Catalog;
  handlers: readonly AppHandler[];
  approve: ApprovalHandler;
  /** Transactional APIs are left out when they would be refused anyway (`--approve deny`). */
  transactional: boolean;
  grant?: readonly string[];
  seed: number;
  /** Plans wanted per category. */
  perCategory: number;
  /** Calls per plan at most (at least 2 for SM/MS, 3 for MM). */
  maxCalls: number;
  /** Plans tried per category before giving up on it. */
  attemptsPerCategory: number;
  values?: ValuePool;
  timeoutMs?: number;
  onPlan?: (kept: number, total: number) => void;
}

export interface SamplingStats {
  attempts: Record<AppBenchCategory, number>;
  kept: Record<AppBenchCategory, number>;
  /** Why tried plans were dropped: a failed call (by code), an empty result, no fitting API, the wrong shape, a duplicate. */
  dropped: Record<string, number>;
}

/** Literals the grammar cannot carry unambiguously (`#a='x, y'`, a quote, a parenthesis) are not used. */
function grammarSafe(v: unknown): v is Scalar {
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v === 'boolean') return true;
  return typeof v === 'string' && v.trim() !== '' && v.length <= 200 && !/[',()=#\n\r]/.test(v);
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const IDENTIFIER = /^[A-Za-z_]\w*$/;

/** Names that say the same field: equal once case and separators go, or `petId` ← `id`. */
export function compatibleNames(param: string, output: string): boolean {
  const p = norm(param);
  const o = norm(output);
  return p === o || (o.length >= 2 && p.endsWith(o));
}

function fits(value: Scalar, p: Parameter): boolean {
  return literalFits(value, p.type);
}

/** The values a parameter can be given without an earlier call: the pool, its enum, its default, a boolean, a small number. */
function literalCandidates(app: string, api: string, p: Parameter, pool: ValuePool | undefined): Scalar[] {
  const pooled = pool?.get(`${app}.${api}.${p.name}`) ?? pool?.get(`${api}.${p.name}`) ?? pool?.get(p.name);
  const raw: unknown[] = pooled
    ? [...pooled]
    : p.type.kind === 'enum'
      ? p.type.values.map((v) => v.value)
      : p.default !== undefined
        ? [p.default]
        : p.type.kind === 'primitive' && p.type.name === 'boolean'
          ? [true, false]
          : p.type.kind === 'primitive' && (p.type.name === 'integer' || p.type.name === 'number')
            ? [1, 2, 3]
            : [];
  return raw.filter((v): v is Scalar => grammarSafe(v) && fits(v, p));
}

interface Candidate {
  api: Api;
  /** Per required parameter (and one optional one taking an earlier output): the choices. */
  choices: Array<{ param: Parameter; literals: Scalar[]; refs: SampledArg[] }>;
  chains: boolean;
}

/**
 * The earlier outputs a parameter can take. A bare name in the call grammar reads back as the
 * latest earlier call returning it (src/plan/plan-text.ts), so only that call is offered.
 */
function refCandidates(p: Parameter, calls: readonly SampledCall[]): SampledArg[] {
  const out: SampledArg[] = [];
  const seen = new Set<string>();
  for (let j = calls.length - 1; j >= 0; j--)
    for (const [name, value] of Object.entries(calls[j]!.outputs)) {
      if (seen.has(name)) continue;
      seen.add(name);
      if (compatibleNames(p.name, name) && fits(value, p))
        out.push({ kind: 'ref', value, from: j, output: name });
    }
  return out;
}

function candidateFor(
  api: Api,
  calls: readonly SampledCall[],
  pool: ValuePool | undefined,
): Candidate | undefined {
  const choices: Candidate['choices'] = [];
  for (const p of api.parameters.filter((q) => q.required)) {
    const literals = literalCandidates(api.app, api.name, p, pool);
    const refs = refCandidates(p, calls);
    if (!literals.length && !refs.length) return undefined;
    choices.push({ param: p, literals, refs });
  }
  if (!choices.some((c) => c.refs.length)) {
    // an optional parameter may carry the dependency
    const optional = api.parameters.find((q) => !q.required && refCandidates(q, calls).length);
    if (optional) choices.push({ param: optional, literals: [], refs: refCandidates(optional, calls) });
  }
  return { api, choices, chains: choices.some((c) => c.refs.length > 0) };
}

const pick = <T>(items: readonly T[], rand: Rand): T => items[Math.floor(rand() * items.length)]!;

/** Samples up to `perCategory` complete plans per category; calls are made as the plans are drawn. */
export async function sampleExecutablePlans(
  opts: PlanSamplingOptions,
): Promise<{ plans: SampledPlan[]; stats: SamplingStats }> {
  const index = indexCatalog(opts.catalog);
  const apps = appRegistry(opts.handlers);
  const grant = opts.grant ? new Set(opts.grant) : undefined;
  const handlerOf = new Map(opts.handlers.map((h) => [h.appId, h]));
  const usable = opts.catalog.apis.filter(
    (a) =>
      (!grant || grant.has(a.app)) &&
      handlerOf.has(a.app) &&
      (opts.transactional || !isTransactionalCall(a, handlerOf.get(a.app))),
  );
  const zero = () => ({ ss: 0, sm: 0, ms: 0, mm: 0 });
  const stats: SamplingStats = { attempts: zero(), kept: zero(), dropped: {} };
  const drop = (why: string) => {
    stats.dropped[why] = (stats.dropped[why] ?? 0) + 1;
  };
  const plans: SampledPlan[] = [];
  const seen = new Set<string>();
  const total = APPBENCH_CATEGORIES.length * opts.perCategory;
  const appCount = new Set(usable.map((a) => a.app)).size;
  for (const category of APPBENCH_CATEGORIES) {
    // several apps are needed for MS and MM: one app's catalog (an OpenAPI import) tries none
    if ((category === 'ms' || category === 'mm') && appCount < 2) continue;
    const rand = mulberry32(opts.seed * 4 + APPBENCH_CATEGORIES.indexOf(category));
    while (stats.kept[category] < opts.perCategory && stats.attempts[category] < opts.attemptsPerCategory) {
      stats.attempts[category]++;
      const drawn = await drawPlan(category, rand);
      if (typeof drawn === 'string') {
        drop(drawn);
        continue;
      }
      const key = JSON.stringify(drawn.map((c) => [c.app, c.api, c.args]));
      if (seen.has(key)) {
        drop('duplicate');
        continue;
      }
      seen.add(key);
      plans.push({ category, calls: drawn });
      stats.kept[category]++;
      opts.onPlan?.(plans.length, total);
    }
  }
  return { plans, stats };

  async function drawPlan(category: AppBenchCategory, rand: Rand): Promise<SampledCall[] | string> {
    const min = category === 'ss' ? 1 : category === 'mm' ? 3 : 2;
    const max = category === 'ss' ? 1 : Math.max(min, opts.maxCalls);
    const n = min + Math.floor(rand() * (max - min + 1));
    const calls: SampledCall[] = [];
    for (let k = 0; k < n; k++) {
      const firstApp = calls[0]?.app;
      const usedApps = new Set(calls.map((c) => c.app));
      const allowed = usable.filter((a) => {
        if (calls.some((c) => c.app === a.app && c.api === a.name)) return false; // one call per API
        if (category === 'sm' && firstApp !== undefined) return a.app === firstApp;
        if (category === 'ms') return !usedApps.has(a.app);
        // MM: the last call must leave two apps or more, one of them called twice
        if (category === 'mm' && k === n - 1)
          return appBenchCategory([...calls.map((c) => c.app), a.app]) === 'mm';
        return true;
      });
      const candidates = allowed
        .map((a) => candidateFor(a, calls, opts.values))
        .filter((c): c is Candidate => c !== undefined && (k === 0 || c.chains));
      if (!candidates.length)
        return k === 0 ? 'no API whose required arguments have values' : 'no API takes an earlier output';
      const call = await runCall(pick(candidates, rand), k > 0, rand);
      if (typeof call === 'string') return call;
      calls.push(call);
    }
    return appBenchCategory(calls.map((c) => c.app)) === category ? calls : 'wrong shape';
  }

  async function runCall(c: Candidate, mustChain: boolean, rand: Rand): Promise<SampledCall | string> {
    const args: Record<string, SampledArg> = {};
    for (const { param, literals, refs } of c.choices) {
      // an earlier output, when one fits, is the natural source (search → book)
      args[param.name] = refs.length ? pick(refs, rand) : { kind: 'literal', value: pick(literals, rand) };
    }
    if (mustChain && !Object.values(args).some((a) => a.kind === 'ref'))
      return 'no API takes an earlier output';
    const outcome = await dispatchCall(
      {
        app: c.api.app,
        api: c.api.name,
        args: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, v.value])),
      },
      {
        catalog: index as CatalogIndex,
        apps: apps as AppRegistry,
        approve: opts.approve,
        ...(grant ? { grant } : {}),
        ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
      },
    );
    if (!outcome.ok) return `call failed: ${outcome.error.code}`;
    const row = resultRows(outcome.raw)[0];
    if (!row) return 'a call returned no row';
    const outputs: Record<string, Scalar> = {};
    for (const [k, v] of Object.entries(row)) if (IDENTIFIER.test(k) && grammarSafe(v)) outputs[k] = v;
    // the call grammar needs a returned name (`out = api(…)`)
    if (!Object.keys(outputs).length) return 'a call returned no field a later call could name';
    return { app: c.api.app, api: c.api.name, args, outputs };
  }
}
