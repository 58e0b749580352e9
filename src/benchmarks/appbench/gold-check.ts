import type { AppHandler } from '../../apps/index.js';
import type { Catalog } from '../../catalog/index.js';
import { autoApprove, type ExecutionResult, executePlan } from '../../exec/index.js';
import { appBenchGoldPlan } from './gold-plan.js';
import type { AppBenchRecord } from './record.js';
import { APPBENCH_CURRENT_DATE } from './task.js';

/**
 * What `apiary apps check` finds in one gold plan:
 * - `rejected`: the executor refused the plan before running it (an argument the catalog does not
 *   declare, a value of the wrong type, an API of another app…);
 * - `no-row`: a search matched no row of the SGD database (the steps using its outputs cannot run);
 * - `failed`: a call failed for another reason;
 * - `dangling-ref` (lint): the gold references an output no earlier call returns (repaired with the
 *   value `used_api` records, as the scorer does);
 * - `unsourced-literal` (lint): a literal argument found neither in the instruction nor in the result
 *   of an earlier call (see {@link literalSource}).
 */
export type GoldFindingKind = 'rejected' | 'no-row' | 'failed' | 'dangling-ref' | 'unsourced-literal';

export interface GoldFinding {
  /** Record id, e.g. `dev_mm#16`. */
  id: string;
  kind: GoldFindingKind;
  step?: string;
  call?: string;
  arg?: string;
  message: string;
}

export interface GoldCheckReport {
  total: number;
  /** Gold plans whose every call succeeded with a result. */
  completed: number;
  perCategory: Record<string, { total: number; completed: number }>;
  findings: GoldFinding[];
  counts: Record<GoldFindingKind, number>;
}

export interface GoldRecord {
  id: string;
  category: string;
  record: AppBenchRecord;
}

/** The current date of every AppBench instruction ("today"), as the agents' prompt states it. */
const TODAY = APPBENCH_CURRENT_DATE;
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** Every string value of a result (rows, records, nested), normalised. */
function resultStrings(value: unknown, out: string[] = []): string[] {
  if (value === null || value === undefined) return out;
  if (typeof value === 'object') {
    for (const v of Array.isArray(value) ? value : Object.values(value)) resultStrings(v, out);
  } else out.push(norm(String(value)));
  return out;
}

/**
 * Where a literal argument comes from, or `undefined`: the instruction (case-insensitive; a date as
 * its ISO form, "March 7"/"7th of March", "the 7th" of March, its weekday within two weeks, or
 * today/tomorrow/day after tomorrow from 2019-03-01; a time as 19:00, 7 pm or 7:30 pm; a number by
 * value (4.60 = 4.6) or a small count as a word; True/False as a yes/no choice the wording implies),
 * or the result of an earlier call.
 */
export function literalSource(
  value: string,
  instruction: string,
  earlier: readonly string[],
): string | undefined {
  const v = norm(value);
  const text = norm(instruction);
  if (v === '' || text.includes(v)) return 'instruction';
  if (v === 'true' || v === 'false') return 'implied yes/no';
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (date) {
    const month = MONTHS[Number(date[2]) - 1]!;
    const day = Number(date[3]);
    const mentions = new RegExp(
      `\\b(${month}|${month.slice(0, 3)})\\.? ${day}(st|nd|rd|th)?\\b|\\b${day}(st|nd|rd|th)? (of )?(${month}|${month.slice(0, 3)})\\b`,
    );
    if (mentions.test(text)) return 'instruction';
    const offset = (Date.parse(v) - Date.parse(TODAY)) / 86_400_000;
    const relative = ['today', 'tomorrow', 'day after tomorrow'][offset];
    if (relative && text.includes(relative)) return 'instruction (relative date)';
    // "the 14th" in the current month, or a weekday ("next Friday") within the next two weeks
    if (date[2] === TODAY.slice(5, 7) && new RegExp(`\\b${day}(st|nd|rd|th)\\b`).test(text))
      return 'instruction';
    const weekday = WEEKDAYS[new Date(`${v}T00:00:00Z`).getUTCDay()]!;
    if (offset >= 0 && offset < 14 && new RegExp(`\\b${weekday}\\b`).test(text))
      return 'instruction (weekday)';
  }
  const time = /^(\d{2}):(\d{2})$/.exec(v);
  if (time) {
    const h = Number(time[1]);
    const m = time[2]!;
    const h12 = h % 12 === 0 ? 12 : h % 12;
    const ampm = h < 12 ? 'a\\.?m' : 'p\\.?m';
    const forms = [`\\b${h}:${m}\\b`, `\\b${h12}(:${m})? ?${ampm}\\b`];
    if (m === '00') forms.push(`\\b${h12} o'clock\\b`);
    if (m === '30') forms.push(`\\bhalf past ${h12}\\b`);
    if (h === 12 && m === '00') forms.push('\\bnoon\\b');
    if (forms.some((f) => new RegExp(f).test(text))) return 'instruction';
  }
  // a number written another way: 4.60 as 4.6, 2 as "two"
  if (/^-?\d+(\.\d+)?$/.test(v) && (text.match(/-?\d+(\.\d+)?/g) ?? []).some((n) => Number(n) === Number(v)))
    return 'instruction';
  if (/^\d+$/.test(v) && NUMBER_WORDS[Number(v)] && new RegExp(`\\b${NUMBER_WORDS[Number(v)]}\\b`).test(text))
    return 'instruction';
  if (earlier.some((r) => r === v || r.includes(v))) return 'an earlier result';
  return undefined;
}

/** The root causes of a run that did not complete (dependents of a failed step are not repeated). */
function runFindings(id: string, res: ExecutionResult): GoldFinding[] {
  if (res.status === 'refused')
    return res.issues.map((i) => ({
      id,
      kind: 'rejected',
      ...(i.step ? { step: i.step } : {}),
      ...(i.field ? { arg: i.field } : {}),
      message: `${i.code}: ${i.message}`,
    }));
  const out: GoldFinding[] = [];
  for (const s of res.steps) {
    const call = `${s.app}.${s.api}`;
    if (s.empty)
      out.push({
        id,
        kind: 'no-row',
        step: s.id,
        call,
        message: `${JSON.stringify(s.args ?? {})} matches no row`,
      });
    else if (s.status !== 'succeeded' && s.error?.code !== 'DEPENDENCY_FAILED')
      out.push({ id, kind: 'failed', step: s.id, call, message: `${s.error?.code}: ${s.error?.message}` });
  }
  return out;
}

/**
 * Executes every gold plan through the executor (approvals granted, no retries) on `handlers` and
 * lints the gold: each rejection or failure with its reason, references to outputs no earlier call
 * returns, and literal values found neither in the instruction nor in any earlier result.
 */
export async function checkAppBenchGold(
  records: readonly GoldRecord[],
  opts: { catalog: Catalog; handlers: readonly AppHandler[] },
): Promise<GoldCheckReport> {
  const findings: GoldFinding[] = [];
  const perCategory: GoldCheckReport['perCategory'] = {};
  let completed = 0;
  for (const { id, category, record } of records) {
    const cat = perCategory[category] ?? { total: 0, completed: 0 };
    perCategory[category] = cat;
    cat.total++;
    const { plan, repairs } = appBenchGoldPlan(record, opts.catalog, id);
    for (const r of repairs)
      if (r.kind === 'dangling-ref-to-literal')
        findings.push({ id, kind: 'dangling-ref', step: r.step, message: r.detail });
    const res = await executePlan(plan, {
      catalog: opts.catalog,
      handlers: opts.handlers,
      approve: autoApprove,
      retries: 0,
    });
    if (res.status === 'succeeded' && !res.steps.some((s) => s.empty)) {
      completed++;
      cat.completed++;
    }
    findings.push(...runFindings(id, res));
    // literals: results of the steps before each one in plan order (the gold's order of calls)
    // the arguments the repair turned into literals (reported above as dangling-ref); detail is `api.arg: …`
    const repaired = new Set(
      repairs
        .filter((r) => r.kind === 'dangling-ref-to-literal')
        .map((r) => `${r.step} ${/^[^.]+\.([^:]+):/.exec(r.detail)?.[1]}`),
    );
    const earlier: string[] = [];
    for (const step of plan.steps) {
      for (const [name, arg] of Object.entries(step.args)) {
        if (arg.kind !== 'literal' || repaired.has(`${step.id} ${name}`)) continue;
        const value = String(arg.value);
        if (literalSource(value, record.input, earlier) === undefined)
          findings.push({
            id,
            kind: 'unsourced-literal',
            step: step.id,
            call: `${step.app}.${step.api}`,
            arg: name,
            message: `'${value}' is neither in the instruction nor in an earlier result`,
          });
      }
      const done = res.steps.find((s) => s.id === step.id);
      if (done?.result !== undefined) earlier.push(...resultStrings(done.result));
    }
  }
  const counts = { rejected: 0, 'no-row': 0, failed: 0, 'dangling-ref': 0, 'unsourced-literal': 0 };
  for (const f of findings) counts[f.kind]++;
  return { total: records.length, completed, perCategory, findings, counts };
}
