import type { AppCallContext, AppCallResult, AppHandler } from '../../../apps/index.js';
import {
  type Api,
  type App,
  acceptedParameters,
  type Catalog,
  indexCatalog,
  missingRequiredParameters,
  type ParamType,
} from '../../../catalog/index.js';
import { ApiaryError, NotFoundError } from '../../../shared/index.js';
import { appBenchSgdSource } from '../catalog.js';
import { loadSgdServices, sgdSlot, slotParameter } from '../sgd-catalog.js';
import { type SgdSiblingIntent, sgdSiblingIntents } from '../sgd-versions.js';
import { refuseImpossibleRequest } from './impossible-requests.js';
import { normalizeSlotValue } from './normalize-slot-value.js';
import { normalizedParamsKey, type SqliteDatabase, type SqliteStatement } from './sgd-database.js';

export interface CreateSgdAppsOptions {
  db: SqliteDatabase;
  catalog: Catalog;
  /** How catalog APIs map to SGD: `appbench` via `appBenchSgdSource`, `sgd` app = service, API = intent. Default from `catalog.name`. */
  kind?: 'appbench' | 'sgd';
  /**
   * Whether an SGD intent is transactional (confirmation + side effect) or a search. Default:
   * with `kind: 'sgd'` the catalog's flag; with `appbench` SGD's own flag from the schemas, so
   * AppBench's `buyeventtickets`/`playmovie` (non-transactional in the AppBench catalog) still
   * confirm and record a side effect.
   */
  isTransactional?: (service: string, intent: string) => boolean;
  /** Most rows a search returns (default: all matching rows). */
  maxRows?: number;
  /** Clock for `side_effects.at`. */
  now?: () => Date;
}

/** One API of a simulated app and the SGD intent behind it. */
export interface SgdApiBinding {
  api: Api;
  service: string;
  intent: string;
  transactional: boolean;
  /**
   * The slots the SGD intent itself takes (required and optional): the values SGD's results echo
   * back. The AppBench catalog also accepts other versions' slots and result-slot filters.
   */
  requestSlots: ReadonlySet<string>;
  /**
   * The same intent in the service's other SGD versions (AppBench only): a call in one of their
   * vocabularies (`origin` for `from_city`) or with one of their values (`Sports`) is answered
   * from the database through them.
   */
  siblings: readonly SgdSiblingIntent[];
}

/** A recorded transactional call (a row of `side_effects`). */
export interface SideEffect {
  id: number;
  app: string;
  api: string;
  service: string;
  intent: string;
  caller: string;
  args: Record<string, unknown>;
  result: Record<string, unknown>;
  at: string;
}

export function listSideEffects(db: SqliteDatabase): SideEffect[] {
  const rows = db.prepare('SELECT * FROM side_effects ORDER BY id').all() as Array<
    Omit<SideEffect, 'args' | 'result'> & { args_json: string; result_json: string }
  >;
  return rows.map(({ args_json, result_json, ...rest }) => ({
    ...rest,
    args: JSON.parse(args_json) as Record<string, unknown>,
    result: JSON.parse(result_json) as Record<string, unknown>,
  }));
}

export function countSideEffects(db: SqliteDatabase): number {
  return (db.prepare('SELECT count(*) AS n FROM side_effects').get() as { n: number }).n;
}

let sgdIntents:
  | Map<string, { transactional: boolean; requestSlots: string[]; siblings: () => SgdSiblingIntent[] }>
  | undefined;

/** SGD's intents by `service.intent`, from the schemas (bundled or $APIARY_DATA). */
function sgdIntent(service: string, intent: string) {
  if (!sgdIntents) {
    sgdIntents = new Map();
    const services = loadSgdServices();
    for (const s of services)
      for (const i of s.intents)
        sgdIntents.set(`${s.service_name}.${i.name}`, {
          transactional: i.is_transactional,
          requestSlots: [...i.required_slots, ...Object.keys(i.optional_slots)],
          siblings: () => sgdSiblingIntents(services, s, i.name),
        });
  }
  return sgdIntents.get(`${service}.${intent}`);
}

/** SGD's `is_transactional` per `service.intent`. */
function sgdIsTransactional(service: string, intent: string): boolean {
  const found = sgdIntent(service, intent);
  if (found === undefined) throw new NotFoundError('SGD intent', `${service}.${intent}`);
  return found.transactional;
}

/**
 * One simulated app per catalog app, backed by the SGD database (docs/simulated-apps.md).
 * Searches return the recorded rows that match the arguments; transactional calls return a
 * confirmation record (the asked arguments always win over a stored row) and write one
 * `side_effects` row. Every handler refuses callers other
 * than its app's owner.
 */
export function createSgdApps(opts: CreateSgdAppsOptions): SgdAppHandler[] {
  const kind = opts.kind ?? (opts.catalog.name === 'sgd' ? 'sgd' : 'appbench');
  const index = indexCatalog(opts.catalog);
  const isTransactional = opts.isTransactional ?? (kind === 'sgd' ? undefined : sgdIsTransactional);
  const queries = new SgdQueries(opts.db);
  const now = opts.now ?? (() => new Date());
  return opts.catalog.apps.map((app) => {
    const bindings = new Map<string, SgdApiBinding>();
    for (const api of index.apisOf(app.id)) {
      const source =
        kind === 'sgd' ? { service: app.id, intent: api.name } : appBenchSgdSource(app.id, api.name);
      if (!source) continue;
      bindings.set(api.name, {
        api,
        ...source,
        transactional: isTransactional ? isTransactional(source.service, source.intent) : api.transactional,
        requestSlots: new Set(
          (kind === 'sgd' ? undefined : sgdIntent(source.service, source.intent)?.requestSlots) ??
            api.parameters.map((p) => p.name),
        ),
        siblings: (kind === 'sgd' ? undefined : sgdIntent(source.service, source.intent)?.siblings()) ?? [],
      });
    }
    return new SgdAppHandler(app, bindings, queries, { maxRows: opts.maxRows, now });
  });
}

export class SgdAppHandler implements AppHandler {
  readonly appId: string;
  readonly owner: string;

  constructor(
    readonly app: App,
    private readonly bindings: ReadonlyMap<string, SgdApiBinding>,
    private readonly queries: SgdQueries,
    private readonly opts: { maxRows?: number; now: () => Date },
  ) {
    this.appId = app.id;
    this.owner = app.owner;
  }

  hasSideEffects(api: string): boolean {
    return this.binding(api)?.transactional === true;
  }

  /** The SGD service and intent behind `api` (name or `<app>.<name>`). */
  binding(api: string): SgdApiBinding | undefined {
    const own = this.bindings.get(api);
    if (own || !api.startsWith(`${this.appId}.`)) return own;
    return this.bindings.get(api.slice(this.appId.length + 1));
  }

  async call(api: string, args: Record<string, unknown>, ctx: AppCallContext): Promise<AppCallResult> {
    if (ctx.signal?.aborted)
      throw ctx.signal.reason ?? new ApiaryError('USAGE', `${this.appId}.${api}: call aborted`);
    if (ctx.caller !== this.owner)
      throw new ApiaryError(
        'PERMISSION_DENIED',
        `${this.appId}: call to "${api}" refused: caller "${ctx.caller}" is not the app's owner "${this.owner}"`,
      );
    const binding = this.binding(api);
    if (!binding) throw new NotFoundError(`API of app ${this.appId}`, api, [...this.bindings.keys()]);
    const where = `${this.appId}.${binding.api.name}`;
    if (args === null || typeof args !== 'object' || Array.isArray(args))
      throw new ApiaryError('INPUT_INVALID', `${where}: arguments must be an object`);
    checkArguments(where, binding.api, args);
    const { own, version } = inOwnNames(binding, args);
    const canonical = checkArguments(where, binding.api, own);
    // What the real service would refuse is refused before any row is looked up or booked.
    const dates = dateSlots(binding.api);
    refuseImpossibleRequest(where, args, dates);
    if (own !== args) refuseImpossibleRequest(where, own, dates);
    if (!binding.transactional)
      return this.searchAnyVersion(binding, own, version && { version, args }).map((row) =>
        inCallerNames(row, version, args),
      );
    return inCallerNames(this.transact(binding, own, canonical, ctx.caller), version, args);
  }

  /**
   * The rows of the bound intent. When none match and the call belongs to another version (made in
   * its names, or holding a value only another version accepts: `event_type` Sports on Events_3),
   * the rows of the first version that has some: the caller's own version first, with its own
   * arguments, then the others in version order; in the bound version's names.
   */
  private searchAnyVersion(
    binding: SgdApiBinding,
    own: Record<string, unknown>,
    caller?: { version: SgdSiblingIntent; args: Record<string, unknown> },
  ) {
    const rows = this.search(ownTarget(binding), own);
    if (rows.length > 0 || (!caller && !usesOtherVersionValue(binding.api, own))) return rows;
    const versions = caller
      ? [caller.version, ...binding.siblings.filter((s) => s !== caller.version)]
      : binding.siblings;
    for (const sibling of versions) {
      let theirs = caller?.version === sibling ? caller.args : undefined;
      if (!theirs) {
        const fromOwn = new Map([...sibling.toOwn].map(([from, to]) => [to, from]));
        theirs = {};
        for (const [name, value] of Object.entries(own)) theirs[fromOwn.get(name) ?? name] = value;
      }
      const found = this.search(siblingTarget(sibling), theirs);
      if (found.length > 0) return found.map((row) => inOwnRow(row, sibling));
    }
    return rows;
  }

  private search(target: SearchTarget, args: Record<string, unknown>): Array<Record<string, unknown>> {
    const { resultSlots } = target;
    const filters: Array<{ slot: string; values: string[] }> = [];
    for (const name of Object.keys(args).sort()) {
      if (!resultSlots.has(name)) continue;
      const raw = args[name];
      const values = [
        ...new Set(
          (Array.isArray(raw) ? raw : [raw])
            .map(normalizeSlotValue)
            .filter((v): v is string => v !== undefined),
        ),
      ].sort();
      if (values.length > 0) filters.push({ slot: name, values });
    }
    const replayKey = normalizedParamsKey(args, target.replaySlots);
    const rows = this.queries.search(target.service, target.intent, filters, replayKey, this.opts.maxRows);
    if (rows.length > 0) return rows;
    // SGD's search results echo the requested dates, times and numbers (a car, a flight, a show is
    // the same entity whatever day is asked; a house "rated 4.2 or higher" comes back rated 4.20;
    // a bus for 4 comes back with 4 passengers). When no recorded row has the asked values, answer
    // with the rows matching the other arguments and echo the asked values, as SGD's simulator did.
    // Only the intent's own request slots echo: a filter on a pure result slot must match.
    const { echoSlots } = target;
    const kept = filters.filter((f) => !echoSlots.has(f.slot));
    if (kept.length === filters.length || kept.length === 0) return rows;
    const echo: Record<string, unknown> = {};
    for (const f of filters) if (echoSlots.has(f.slot)) echo[f.slot] = args[f.slot];
    const seen = new Set<string>();
    const echoed: Array<Record<string, unknown>> = [];
    for (const row of this.queries.search(target.service, target.intent, kept, undefined)) {
      const out = { ...row, ...echo };
      const key = JSON.stringify(out);
      if (seen.has(key)) continue;
      seen.add(key);
      echoed.push(out);
      if (this.opts.maxRows !== undefined && echoed.length >= this.opts.maxRows) break;
    }
    return echoed;
  }

  private transact(
    binding: SgdApiBinding,
    args: Record<string, unknown>,
    canonical: ReadonlyMap<string, string>,
    caller: string,
  ): Record<string, unknown> {
    const { api } = binding;
    const given = new Map<string, unknown>();
    for (const p of acceptedParameters(api)) {
      const value = args[p.name];
      if (normalizeSlotValue(value) !== undefined) given.set(p.name, canonical.get(p.name) ?? value);
      else if (p.default !== undefined) given.set(p.name, p.default);
    }
    const probe = [...given]
      .map(([slot, value]) => ({ slot, value: normalizeSlotValue(value)! }))
      .sort((a, b) => (a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0));
    // A call SGD recorded with exactly these arguments confirms with SGD's row, otherwise the most
    // consistent row: the row fills the slots not asked for and spells the asked values its way,
    // but never contradicts them (SGD sometimes booked another value than asked; a confirmation
    // must say what was done as asked).
    const replayKey = normalizedParamsKey(args, slotNames(api));
    const replayed =
      replayKey === undefined
        ? undefined
        : this.queries.replayRow(binding.service, binding.intent, replayKey);
    const row = replayed ?? this.queries.consistentRow(binding.service, binding.intent, probe) ?? {};
    const record: Record<string, unknown> = {};
    for (const name of [...api.outputs.map((o) => o.name), ...acceptedParameters(api).map((p) => p.name)]) {
      if (name in record) continue;
      const fromArgs = given.get(name);
      const fromRow = row[name];
      if (fromArgs !== undefined)
        record[name] =
          fromRow !== undefined && normalizeSlotValue(fromRow) === normalizeSlotValue(fromArgs)
            ? fromRow
            : fromArgs;
      else if (fromRow !== undefined) record[name] = fromRow;
    }
    const echoed: Record<string, unknown> = {};
    for (const p of acceptedParameters(api)) if (p.name in args) echoed[p.name] = args[p.name];
    this.queries.recordSideEffect({
      app: this.appId,
      api: api.name,
      service: binding.service,
      intent: binding.intent,
      caller,
      args_json: JSON.stringify(echoed),
      result_json: JSON.stringify(record),
      at: this.opts.now().toISOString(),
    });
    return record;
  }
}

/** Where a search looks: an SGD intent, the slots its rows carry, and which of them echo the request. */
interface SearchTarget {
  service: string;
  intent: string;
  resultSlots: ReadonlySet<string>;
  echoSlots: ReadonlySet<string>;
  /** The argument names that identify a recorded call for exact replay. */
  replaySlots: readonly string[];
}

function ownTarget(binding: SgdApiBinding): SearchTarget {
  const { api } = binding;
  return {
    service: binding.service,
    intent: binding.intent,
    resultSlots: new Set(api.outputs.map((o) => o.name)),
    echoSlots: new Set(
      api.outputs.filter((o) => binding.requestSlots.has(o.name) && echoesRequest(o.type)).map((o) => o.name),
    ),
    replaySlots: slotNames(api),
  };
}

function siblingTarget({ service, intent }: SgdSiblingIntent): SearchTarget {
  const request = [...intent.required_slots, ...Object.keys(intent.optional_slots)];
  const typeOf = (slot: string) => slotParameter(sgdSlot(service, slot), false).type;
  return {
    service: service.service_name,
    intent: intent.name,
    resultSlots: new Set(intent.result_slots),
    echoSlots: new Set(intent.result_slots.filter((n) => request.includes(n) && echoesRequest(typeOf(n)))),
    replaySlots: [...new Set([...request, ...intent.result_slots])],
  };
}

/** Does an enum argument hold a value the bound version does not declare (only `extraValues` has it)? */
function usesOtherVersionValue(api: Api, args: Record<string, unknown>): boolean {
  return Object.entries(api.extraValues ?? {}).some(([name, values]) => {
    const given = (Array.isArray(args[name]) ? (args[name] as unknown[]) : [args[name]]).map(
      normalizeSlotValue,
    );
    return values.some((v) => given.includes(normalizeSlotValue(v)));
  });
}

/**
 * A call that does not give the bound version's required arguments but gives another version's
 * (`findbus` with `origin`, `destination`, `departure_date`) is read in that version's vocabulary:
 * its slots become the bound version's (`origin` → `from_city`), so the rows SGD recorded for the
 * bound version answer it. Other calls are left as they are.
 */
function inOwnNames(
  binding: SgdApiBinding,
  args: Record<string, unknown>,
): { own: Record<string, unknown>; version?: SgdSiblingIntent } {
  const given = (name: string) => hasValue(args[name]);
  if (binding.api.parameters.every((p) => !p.required || given(p.name))) return { own: args };
  const version = binding.siblings.find(
    (s) => s.intent.required_slots.length > 0 && s.intent.required_slots.every(given),
  );
  if (!version) return { own: args };
  const own: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const mapped = version.toOwn.get(name);
    if (mapped !== undefined && !given(mapped)) own[mapped] = value;
    else own[name] = value;
  }
  return { own, version };
}

/** A row of another version in the bound version's names (`event_location` kept, `venue` added). */
function inOwnRow(row: Record<string, unknown>, version: SgdSiblingIntent): Record<string, unknown> {
  const out = { ...row };
  for (const [from, to] of version.toOwn) if (from in row && !(to in out)) out[to] = row[from];
  return out;
}

/**
 * A result for a call made in another version's vocabulary also carries that version's names
 * (`origin` beside `from_city`), and echoes the asked slots the bound version has no row value for
 * (`fare_type`), as SGD's results echo a request: the caller's later steps read them.
 */
function inCallerNames(
  record: Record<string, unknown>,
  version: SgdSiblingIntent | undefined,
  args: Record<string, unknown>,
): Record<string, unknown> {
  if (!version) return record;
  const out = { ...record };
  for (const [from, to] of version.toOwn) if (to in record && !(from in out)) out[from] = record[to];
  for (const slot of version.intent.result_slots)
    if (!(slot in out) && normalizeSlotValue(args[slot]) !== undefined) out[slot] = args[slot];
  return out;
}

const ECHO_TYPES = new Set(['date', 'time', 'integer', 'number']);

/** Dates, times and numbers, including SGD's categorical counts (`1`…`9`), are echoed by SGD's searches. */
function echoesRequest(type: ParamType): boolean {
  if (type.kind === 'primitive') return ECHO_TYPES.has(type.name);
  return type.kind === 'enum' && type.values.every((v) => /^\d+$/.test(v.value));
}

/**
 * The argument names that identify a call for exact replay: the API's parameters and result
 * slots (an extra result-slot filter makes the call differ from every recorded one).
 */
function slotNames(api: Api): string[] {
  return [...new Set([...acceptedParameters(api).map((p) => p.name), ...api.outputs.map((o) => o.name)])];
}

/** The arguments typed as dates. */
function dateSlots(api: Api): Set<string> {
  return new Set(
    acceptedParameters(api)
      .filter((p) => p.type.kind === 'primitive' && p.type.name === 'date')
      .map((p) => p.name),
  );
}

function describe(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}

/** An argument counts as given when it holds a value other than SGD's `dontcare`. */
const hasValue = (value: unknown) =>
  (Array.isArray(value) ? value : [value]).some((v) => normalizeSlotValue(v) !== undefined);

/**
 * Required arguments present (or another version's required set); enum and boolean arguments among their values (after
 * normalisation). Returns the catalog's spelling of each enum/boolean argument (`pool` → `Pool`).
 */
function checkArguments(where: string, api: Api, args: Record<string, unknown>): Map<string, string> {
  // SGD's `dontcare` only makes sense for optional slots.
  const [missing] = missingRequiredParameters(api, (name) => hasValue(args[name]));
  if (missing)
    throw new ApiaryError(
      'INPUT_INVALID',
      `${where}: missing required argument "${missing.name}"${missing.description ? ` (${missing.description})` : ''}`,
    );
  const canonical = new Map<string, string>();
  for (const p of acceptedParameters(api)) {
    const value = args[p.name];
    const values = (Array.isArray(value) ? value : [value]).map(normalizeSlotValue);
    if (!values.some((v) => v !== undefined)) continue;
    const type = p.type;
    let allowed: string[] | undefined;
    if (type.kind === 'enum') allowed = type.values.map((v) => v.value);
    else if (type.kind === 'primitive' && type.name === 'boolean') allowed = ['True', 'False'];
    if (!allowed) continue;
    const norms = new Map(allowed.map((a) => [normalizeSlotValue(a), a]));
    for (const v of values)
      if (v !== undefined && !norms.has(v))
        throw new ApiaryError(
          'INPUT_INVALID',
          `${where}: argument "${p.name}" is ${describe(value)}, expected one of ${allowed.join(', ')}`,
        );
    if (!Array.isArray(value) && values[0] !== undefined) canonical.set(p.name, norms.get(values[0])!);
  }
  return canonical;
}

/** The prepared statements the handlers share (one set per database). */
class SgdQueries {
  private readonly searchStatements = new Map<string, SqliteStatement>();
  private readonly consistentStatements = new Map<number, SqliteStatement>();
  private readonly insertSideEffect: SqliteStatement;
  private readonly replayStatement: SqliteStatement;

  constructor(private readonly db: SqliteDatabase) {
    this.replayStatement = db.prepare(
      `SELECT r.row_json FROM calls c
       JOIN call_results cr ON cr.call_id = c.id JOIN rows r ON r.id = cr.row_id
       WHERE c.service = ? AND c.intent = ? AND c.params_norm = ?
       ORDER BY c.id, cr.rank LIMIT 1`,
    );
    this.insertSideEffect = db.prepare(
      `INSERT INTO side_effects (app, api, service, intent, caller, args_json, result_json, at)
       VALUES (@app, @api, @service, @intent, @caller, @args_json, @result_json, @at)`,
    );
  }

  /**
   * Rows of (service, intent) whose value for every filter slot is one of the filter's values,
   * plus the rows SGD returned to calls whose normalised arguments equal `replayKey`; by row id.
   */
  search(
    service: string,
    intent: string,
    filters: ReadonlyArray<{ slot: string; values: readonly string[] }>,
    replayKey: string | undefined,
    limit?: number,
  ): Array<Record<string, unknown>> {
    const shape = filters.map((f) => f.values.length).join(',');
    let stmt = this.searchStatements.get(shape);
    if (!stmt) {
      let sql = 'SELECT id, row_json FROM rows WHERE service = ? AND intent = ?';
      for (const f of filters)
        sql += ` AND id IN (SELECT row_id FROM row_values WHERE service = ? AND slot = ? AND value_norm IN (${f.values
          .map(() => '?')
          .join(', ')}))`;
      sql += ` UNION SELECT r.id, r.row_json FROM calls c
        JOIN call_results cr ON cr.call_id = c.id JOIN rows r ON r.id = cr.row_id
        WHERE c.service = ? AND c.intent = ? AND c.params_norm = ?`;
      sql += ' ORDER BY id LIMIT ?';
      stmt = this.db.prepare(sql);
      this.searchStatements.set(shape, stmt);
    }
    const params: unknown[] = [service, intent];
    for (const f of filters) params.push(service, f.slot, ...f.values);
    params.push(service, intent, replayKey ?? null);
    params.push(limit ?? -1);
    return (stmt.all(...params) as Array<{ row_json: string }>).map(
      (r) => JSON.parse(r.row_json) as Record<string, unknown>,
    );
  }

  /** The first row SGD returned to a call of (service, intent) with these normalised arguments. */
  replayRow(service: string, intent: string, replayKey: string): Record<string, unknown> | undefined {
    const hit = this.replayStatement.get(service, intent, replayKey) as { row_json: string } | undefined;
    return hit ? (JSON.parse(hit.row_json) as Record<string, unknown>) : undefined;
  }

  /**
   * The row of `service` (any intent) that agrees with every probe slot it has and shares the
   * most slots with the probe (at least one); ties go to rows of `intent`, then to the first row.
   */
  consistentRow(
    service: string,
    intent: string,
    probe: ReadonlyArray<{ slot: string; value: string }>,
  ): Record<string, unknown> | undefined {
    if (probe.length === 0) return undefined;
    let stmt = this.consistentStatements.get(probe.length);
    if (!stmt) {
      const pairs = probe.map(() => '(?, ?)').join(', ');
      stmt = this.db.prepare(
        `WITH probe(slot, value_norm) AS (VALUES ${pairs})
         SELECT r.row_json FROM (
           SELECT v.row_id, count(*) AS hits
           FROM probe p JOIN row_values v
             ON v.service = ? AND v.slot = p.slot AND v.value_norm = p.value_norm
           GROUP BY v.row_id
         ) h JOIN rows r ON r.id = h.row_id
         WHERE h.hits = (SELECT count(*) FROM row_values w
                         WHERE w.row_id = h.row_id AND w.slot IN (SELECT slot FROM probe))
         ORDER BY h.hits DESC, r.intent = ? DESC, r.id
         LIMIT 1`,
      );
      this.consistentStatements.set(probe.length, stmt);
    }
    const params: unknown[] = [];
    for (const p of probe) params.push(p.slot, p.value);
    params.push(service, intent);
    const hit = stmt.get(...params) as { row_json: string } | undefined;
    return hit ? (JSON.parse(hit.row_json) as Record<string, unknown>) : undefined;
  }

  recordSideEffect(
    effect: Omit<SideEffect, 'id' | 'args' | 'result'> & { args_json: string; result_json: string },
  ): void {
    this.insertSideEffect.run(effect);
  }
}
