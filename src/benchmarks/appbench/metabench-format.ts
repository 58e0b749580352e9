import {
  type ArgValue,
  type Plan,
  PlanParseError,
  type Step,
  SYSTEM_INPUTS,
  type SystemInput,
} from '../../plan/index.js';

/**
 * MetaBench's call-list text format, one call per line (docs/plan-format.md):
 *
 *   Rents: [car_type, car_name = getcarsavailable(#city='Warsaw', #start_date='2019-03-07')]
 *   Rents: [ok = reservecar(#car_type=car_type, #add_insurance='True')]
 *
 * `App:` and the brackets are optional; `App_api` names lose their app prefix. A value is a
 * quoted literal, an unquoted number/True/False literal, a bare output name (a reference to the
 * latest earlier step returning it) or `sK.name` (step K's output), `?` / `?'prompt'` (ask the
 * user), or `$clipboard`, `$current_date`, `$shared_input`, `$device_details` (system inputs).
 * Steps get positional ids s1, s2, …
 */

export interface ParsePlanOptions {
  /** Name used in error messages (file name). */
  source?: string;
  /** App of a call written without `App:` (e.g. AppBench gold strings); default: error. */
  appOf?: (api: string, index: number) => string | undefined;
  /** Skip unparseable lines instead of throwing (model output). */
  lenient?: boolean;
}

export interface SkippedLine {
  line: number;
  text: string;
  reason: string;
}

export interface ParsedPlanText {
  plan: Plan;
  skipped: SkippedLine[];
}

const IDENT = /^[A-Za-z_][\w]*$/;

class Cursor {
  pos = 0;
  constructor(
    readonly text: string,
    readonly fail: (col: number, msg: string) => never,
  ) {}
  skipSpaces(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }
  peek(): string | undefined {
    return this.text[this.pos];
  }
  expect(ch: string): void {
    this.skipSpaces();
    if (this.text[this.pos] !== ch) this.fail(this.pos + 1, `expected "${ch}"`);
    this.pos++;
  }
}

/** Reads a single-quoted literal starting at `c.pos` (on the quote); `end` is where the args stop. */
function readQuoted(c: Cursor, end: number): string {
  const start = c.pos + 1;
  let out = '';
  for (let i = start; i < end; i++) {
    const ch = c.text[i]!;
    const next = c.text[i + 1];
    if (ch === '\\' && i + 1 < end && (next === "'" || next === '\\' || next === 'n' || next === 'r')) {
      out += next === 'n' ? '\n' : next === 'r' ? '\r' : next;
      i++;
      continue;
    }
    if (ch === "'") {
      // Official data does not escape quotes ('Mcdonald's'): a quote closes the literal only
      // when what follows is the next argument or the end of the list.
      const rest = c.text.slice(i + 1, end);
      if (/^\s*$/.test(rest) || /^\s*,\s*#?[A-Za-z_]\w*\s*=/.test(rest)) {
        c.pos = i + 1;
        return out;
      }
    }
    out += ch;
  }
  return c.fail(start, 'unterminated quoted value');
}

function parseBareValue(token: string, col: number, fail: (col: number, msg: string) => never): ArgValue {
  if (token === '?') return { kind: 'ask' };
  if (token.startsWith('$')) {
    const source = token.slice(1) as SystemInput;
    if ((SYSTEM_INPUTS as readonly string[]).includes(source)) return { kind: 'system', source };
    return fail(
      col,
      `unknown system input "${token}" (one of ${SYSTEM_INPUTS.map((s) => `$${s}`).join(', ')})`,
    );
  }
  if (/^-?\d+(\.\d+)?$/.test(token)) return { kind: 'literal', value: Number(token) };
  if (token === 'True' || token === 'False') return { kind: 'literal', value: token === 'True' };
  if (token === 'None') return { kind: 'literal', value: null };
  const qualified = /^(s\d+)\.([A-Za-z_]\w*)$/.exec(token);
  if (qualified) return { kind: 'ref', step: qualified[1]!, output: qualified[2]! };
  if (IDENT.test(token)) return { kind: 'ref', step: null, output: token };
  return fail(col, `cannot read value "${token}"`);
}

interface RawCall {
  app: string | undefined;
  api: string;
  outputs: string[];
  args: Array<[string, ArgValue]>;
}

function parseCallLine(text: string, fail: (col: number, msg: string) => never): RawCall {
  let body = text.trim();
  let offset = text.indexOf(body);
  let app: string | undefined;
  const appMatch = /^([A-Za-z_][\w.-]*)\s*:\s*/.exec(body);
  if (appMatch) {
    app = appMatch[1];
    body = body.slice(appMatch[0].length);
    offset += appMatch[0].length;
  }
  if (body.startsWith('[')) {
    if (!body.endsWith(']')) fail(offset + body.length, 'expected "]" at the end of the call');
    body = body.slice(1, -1);
    offset += 1;
  }
  const open = body.indexOf('(');
  const close = body.lastIndexOf(')');
  if (open < 0) fail(offset + 1, 'expected a call "name(...)"');
  if (close < open) fail(offset + body.length, 'expected ")"');
  if (body.slice(close + 1).trim()) fail(offset + close + 2, 'unexpected text after ")"');
  const head = body.slice(0, open);
  const eq = head.lastIndexOf('=');
  const outputs =
    eq >= 0
      ? head
          .slice(0, eq)
          .split(',')
          .map((s) => s.trim())
      : [];
  for (const o of outputs) if (!IDENT.test(o)) fail(offset + 1, `invalid output name "${o}"`);
  let api = head.slice(eq + 1).trim();
  if (!/^[A-Za-z_][\w.]*$/.test(api)) fail(offset + eq + 2, `invalid API name "${api}"`);
  if (app && api.startsWith(`${app}_`)) api = api.slice(app.length + 1);

  const args: Array<[string, ArgValue]> = [];
  // names seen so far: a model's line may hold any number of arguments (a scan per argument was quadratic)
  const seen = new Set<string>();
  const c = new Cursor(body, (col, msg) => fail(offset + col, msg));
  c.pos = open + 1;
  for (;;) {
    c.skipSpaces();
    if (c.pos >= close) break;
    if (args.length > 0) {
      c.expect(',');
      c.skipSpaces();
    }
    if (c.peek() === '#') c.pos++;
    const keyMatch = /^[A-Za-z_]\w*/.exec(body.slice(c.pos, close));
    if (!keyMatch) fail(offset + c.pos + 1, 'expected an argument name');
    const key = keyMatch[0];
    c.pos += key.length;
    c.expect('=');
    c.skipSpaces();
    let value: ArgValue;
    if (c.peek() === "'") {
      value = { kind: 'literal', value: readQuoted(c, close) };
    } else if (c.peek() === '?' && body[c.pos + 1] === "'") {
      c.pos++;
      value = { kind: 'ask', prompt: readQuoted(c, close) };
    } else {
      const m = /^[^,)\s]+/.exec(body.slice(c.pos, close));
      if (!m) fail(offset + c.pos + 1, `missing value of "${key}"`);
      value = parseBareValue(m[0], offset + c.pos + 1, fail);
      c.pos += m[0].length;
    }
    if (seen.has(key)) fail(offset + c.pos, `argument "${key}" given twice`);
    seen.add(key);
    args.push([key, value]);
  }
  return { app, api, outputs, args };
}

/** Parses MetaBench call-list text into a plan; throws PlanParseError unless `lenient`. */
export function parseMetabenchPlan(text: string, opts: ParsePlanOptions = {}): ParsedPlanText {
  const source = opts.source ?? '<plan>';
  const steps: Step[] = [];
  const skipped: SkippedLine[] = [];
  const lines = text.split(/\r?\n/);
  // Output name → id of the latest step so far returning it (one lookup per bare reference).
  const latestProducer = new Map<string, string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim() || line.trim().startsWith('//')) continue;
    const fail = (col: number, msg: string): never => {
      throw new PlanParseError(source, i + 1, col, msg);
    };
    let raw: RawCall;
    try {
      raw = parseCallLine(line, fail);
    } catch (error) {
      if (opts.lenient && error instanceof PlanParseError) {
        skipped.push({ line: i + 1, text: line, reason: error.problem });
        continue;
      }
      throw error;
    }
    const id = `s${steps.length + 1}`;
    const app = raw.app ?? opts.appOf?.(raw.api, steps.length);
    if (!app) {
      const err = new PlanParseError(source, i + 1, 1, `no app for call "${raw.api}" (write "App: [...]")`);
      if (opts.lenient) {
        skipped.push({ line: i + 1, text: line, reason: err.problem });
        continue;
      }
      throw err;
    }
    const args: Record<string, ArgValue> = {};
    for (const [k, v] of raw.args) {
      if (v.kind === 'ref' && v.step === null) {
        // The latest earlier step that returns this name.
        args[k] = { kind: 'ref', step: latestProducer.get(v.output) ?? null, output: v.output };
      } else args[k] = v;
    }
    steps.push({ id, app, api: raw.api, args, outputs: raw.outputs });
    for (const o of raw.outputs) latestProducer.set(o, id);
  }
  return { plan: { steps }, skipped };
}

function quote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

function printValue(
  v: ArgValue,
  latestBefore: ReadonlyMap<string, string>,
  positional: Map<string, string>,
): string {
  switch (v.kind) {
    case 'literal':
      if (typeof v.value === 'string') return quote(v.value);
      if (typeof v.value === 'boolean') return v.value ? 'True' : 'False';
      if (v.value === null) return 'None';
      return String(v.value);
    case 'ask':
      return v.prompt === undefined ? '?' : `?${quote(v.prompt)}`;
    case 'system':
      return `$${v.source}`;
    case 'ref': {
      if (v.step === null) return v.output;
      // A bare name reads back as the latest earlier producer: use it only when that is the step meant.
      return latestBefore.get(v.output) === v.step
        ? v.output
        : `${positional.get(v.step) ?? v.step}.${v.output}`;
    }
  }
}

/** Prints a plan in MetaBench call-list text; `parseMetabenchPlan(print(p))` equals `p` up to step ids. */
export function printMetabenchPlan(plan: Plan): string {
  const positional = new Map(plan.steps.map((s, i) => [s.id, `s${i + 1}`]));
  // Output name → id of the latest step before the current one returning it (linear in the plan).
  const latestBefore = new Map<string, string>();
  return plan.steps
    .map((step) => {
      const args = Object.entries(step.args)
        .map(([k, v]) => `#${k}=${printValue(v, latestBefore, positional)}`)
        .join(', ');
      for (const o of step.outputs) latestBefore.set(o, step.id);
      const outs = step.outputs.length ? `${step.outputs.join(', ')} = ` : '';
      // The parser strips an `App_` prefix, so an API really named that way keeps it doubled.
      const api = step.api.startsWith(`${step.app}_`) ? `${step.app}_${step.api}` : step.api;
      return `${step.app}: [${outs}${api}(${args})]`;
    })
    .join('\n');
}

/** Renames step ids to s1, s2, … (and their references), the ids the text format uses. */
export function withPositionalIds(plan: Plan): Plan {
  const ids = new Map(plan.steps.map((s, i) => [s.id, `s${i + 1}`]));
  return {
    steps: plan.steps.map((s) => ({
      ...s,
      id: ids.get(s.id)!,
      args: Object.fromEntries(
        Object.entries(s.args).map(([k, v]) => [
          k,
          v.kind === 'ref' && v.step !== null ? { ...v, step: ids.get(v.step) ?? v.step } : v,
        ]),
      ),
    })),
  };
}
