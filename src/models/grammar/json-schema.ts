import { ApiaryError } from '../../shared/index.js';
import { GbnfRules, type GrammarLimits, gbnfClassChar, gbnfLiteral } from './gbnf.js';
import { integerRangeGbnf, MAX_INTEGER_MAGNITUDE } from './integer-range.js';
import { MAX_PATTERN_REPEAT, patternGbnf, UnsupportedPattern } from './pattern.js';

/**
 * JSON Schema → GBNF (llama.cpp's grammar language), so a local model can only write values the
 * schema accepts. The subset, and what is approximated (always towards fewer values, so what is
 * generated still validates), is documented in docs/models.md, "Constrained decoding".
 */

export interface JsonSchemaGrammarOptions extends GrammarLimits {
  /**
   * Longest string when the schema gives no `maxLength` (default: unbounded). Also caps unbounded
   * repeats in a `pattern`. A random or weak model may never close an unbounded string: give a
   * bound to force termination.
   */
  maxStringLength?: number;
  /** Most items of an array (and entries of a free-form object) without `maxItems` (default: unbounded). */
  maxItems?: number;
  /** Nesting of a schema-less value (`{}`, `true`, a free-form object's values); default 2. */
  anyValueDepth?: number;
  /** Told of each place where the grammar only approximates the schema. */
  onApproximation?: (note: string) => void;
}

type Schema = Record<string, unknown>;

/** Above this a length or count bound is not spelled out (llama.cpp expands `{m,n}` into n rules). */
const MAX_SPELLED_BOUND = 128;
/** llama.cpp refuses a grammar whose `{m,n}` goes above this. */
const LLAMA_MAX_REPETITION = 2000;
const FRACTION = '"." [0-9]{1,15}';
const ANY_INTEGER = '"0" | "-"? [1-9] [0-9]{0,14}';
const ANY_NUMBER = `"-"? ("0" | [1-9] [0-9]{0,14}) (${FRACTION})?`;
/** What `format` adds as a pattern (the common ones; others are plain strings). */
const FORMAT_PATTERNS: Record<string, string> = {
  date: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$',
  time: '^([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d$',
  'date-time':
    '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,3})?Z$',
  uuid: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
};

const isSchema = (x: unknown): x is Schema => x !== null && typeof x === 'object' && !Array.isArray(x);
const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

/** Whether a JSON value is of a schema's `type` (any when the schema names none). */
function fitsType(value: unknown, type: unknown): boolean {
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  if (!types) return true;
  const kind =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'array'
        : typeof value === 'object'
          ? 'object'
          : typeof value === 'number'
            ? Number.isInteger(value)
              ? 'integer'
              : 'number'
            : typeof value;
  return types.includes(kind) || (kind === 'integer' && types.includes('number'));
}

/** Repetition of `item` between `min` and `max` times (max undefined: unbounded). */
function repeat(item: string, min: number, max: number | undefined): string {
  if (max === undefined) return min === 0 ? `${item}*` : min === 1 ? `${item}+` : `${item}{${min},}`;
  if (min === 0 && max === 1) return `${item}?`;
  return min === max ? `${item}{${min}}` : `${item}{${min},${max}}`;
}

/**
 * Builds GBNF rules for JSON values of schemas, for one grammar: `value(schema)` gives the rule of
 * a schema; `grammar(rootBody)` the whole text. Benchmarks compose their protocol grammars with it
 * (a JSON value inside a text format).
 */
export class JsonGrammarBuilder {
  readonly rules: GbnfRules;
  /** The rule of each `$ref`, per root schema (several tools may each have `#/$defs/X`). */
  private readonly refs = new Map<Schema, Map<string, string>>();
  private rootSchema: Schema = {};

  constructor(private readonly options: JsonSchemaGrammarOptions = {}) {
    this.rules = new GbnfRules(options);
    this.rules.name('root');
  }

  /** The grammar text with `root ::= rootBody`. */
  grammar(rootBody: string): string {
    this.rules.define('root', rootBody);
    return this.rules.text();
  }

  /** Optional whitespace: at most one space (an unbounded run could loop forever). */
  get ws(): string {
    return this.rules.rule('ws', '" "?');
  }

  /** Text of at most `maxLength` characters (default: the builder's `maxStringLength`), none in `excluded`. */
  text(hint: string, opts: { maxLength?: number; minLength?: number; excluded?: string } = {}): string {
    // control characters other than a newline are never written; a newline only when not excluded
    const excluded = [...(opts.excluded ?? '')].map((c) => c.codePointAt(0)!);
    const cls = `[^${excluded.map(gbnfClassChar).join('')}\\x00-\\x09\\x0B-\\x1F]`;
    const max = opts.maxLength ?? this.options.maxStringLength;
    return this.rules.rule(hint, repeat(cls, opts.minLength ?? 0, max));
  }

  private note(note: string): void {
    this.options.onApproximation?.(note);
  }

  /** The rule of a value of `schema`; `$ref`s resolve against `root` (default: `schema` itself). */
  value(schema: unknown, hint = 'value', root: unknown = schema): string {
    const previous = this.rootSchema;
    this.rootSchema = isSchema(root) ? root : {};
    try {
      return this.schemaRule(schema, hint);
    } finally {
      this.rootSchema = previous;
    }
  }

  private schemaRule(schema: unknown, hint: string): string {
    if (schema === true) return this.anyValue(this.options.anyValueDepth ?? 2);
    if (schema === false)
      throw new ApiaryError(
        'USAGE',
        `schema at "${hint}" is false: no value is allowed, nothing can be generated`,
      );
    if (!isSchema(schema))
      throw new ApiaryError(
        'USAGE',
        `schema at "${hint}" is not an object or boolean (got ${JSON.stringify(schema)})`,
      );
    if (typeof schema.$ref === 'string') return this.ref(schema.$ref, hint);
    if ('const' in schema) return this.rules.rule(hint, gbnfLiteral(JSON.stringify(schema.const)));
    if (Array.isArray(schema.enum)) {
      // values of another type than `type` allows would not validate: left out
      const values = schema.enum.filter((v) => fitsType(v, schema.type));
      if (values.length === 0)
        throw new ApiaryError('USAGE', `schema at "${hint}" has no enum value of its type`);
      return this.rules.rule(hint, values.map((v) => gbnfLiteral(JSON.stringify(v))).join(' | '));
    }
    const { anyOf, oneOf, allOf, ...rest } = schema;
    const branches = Array.isArray(anyOf) ? anyOf : Array.isArray(oneOf) ? oneOf : undefined;
    if (branches) {
      if (Array.isArray(oneOf))
        this.note(`${hint}: oneOf is generated as anyOf (a value may match several branches)`);
      const alternatives = branches.map((b, i) =>
        this.schemaRule(isSchema(b) ? { ...rest, ...b } : b, `${hint}-${i}`),
      );
      return this.rules.rule(hint, alternatives.join(' | '));
    }
    if (Array.isArray(allOf)) return this.schemaRule(this.mergeAll(rest, allOf, hint), hint);
    let types: string[];
    if (typeof schema.type === 'string') types = [schema.type];
    else if (Array.isArray(schema.type))
      types = schema.type.filter((t): t is string => typeof t === 'string');
    else if (isSchema(schema.properties)) types = ['object'];
    else if (schema.items !== undefined || Array.isArray(schema.prefixItems)) types = ['array'];
    else return this.anyValue(this.options.anyValueDepth ?? 2);
    if (schema.nullable === true && !types.includes('null')) types.push('null');
    const alternatives = types.map((t) => this.typed(t, schema, types.length === 1 ? hint : `${hint}-${t}`));
    return alternatives.length === 1 ? alternatives[0]! : this.rules.rule(hint, alternatives.join(' | '));
  }

  /**
   * The text of a scalar value as a text format writes it, without JSON's quotes or escapes (plan
   * lines quote with `'`, ReAct writes a line): strings per `pattern` / `format` / length (never
   * holding a character of `excluded`, a control character, `"` or `\\`), enums and consts as
   * their text, numbers, integers and booleans as in JSON. Objects and arrays are any text.
   */
  plainText(schema: unknown, hint: string, opts: { excluded?: string } = {}): string {
    const anyText = () => this.text(`${hint}-text`, { excluded: `"\\${opts.excluded ?? ''}` });
    if (!isSchema(schema)) return anyText();
    const s = typeof schema.$ref === 'string' ? this.resolve(schema.$ref, hint) : schema;
    if (!isSchema(s)) return anyText();
    const textOf = (v: unknown) => gbnfLiteral(typeof v === 'string' ? v : JSON.stringify(v));
    if ('const' in s) return this.rules.rule(hint, textOf(s.const));
    if (Array.isArray(s.enum) && s.enum.length > 0)
      return this.rules.rule(hint, s.enum.map(textOf).join(' | '));
    const branches = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
    if (branches)
      return this.rules.rule(
        hint,
        branches.map((b, i) => this.plainText(b, `${hint}-${i}`, opts)).join(' | '),
      );
    const type = typeof s.type === 'string' ? s.type : Array.isArray(s.type) ? s.type[0] : undefined;
    if (type === 'integer' || type === 'number' || type === 'boolean' || type === 'null')
      return this.typed(type, s, hint);
    if (type !== 'string') return anyText();
    const pattern = this.patternOf(s);
    if (pattern !== undefined) {
      const body = this.patternBody(pattern, hint);
      if (body !== undefined) return this.rules.rule(hint, body);
    }
    this.refuseEmptyRange(s, 'minLength', 'maxLength', 'string', hint);
    const min = this.bound(num(s.minLength), 0, 'minLength', hint) ?? 0;
    const max = this.bound(num(s.maxLength), this.options.maxStringLength, 'maxLength', hint);
    return this.text(hint, {
      excluded: `"\\${opts.excluded ?? ''}`,
      minLength: min,
      ...(max === undefined ? {} : { maxLength: Math.max(min, max) }),
    });
  }

  private patternOf(s: Schema): string | undefined {
    return typeof s.pattern === 'string'
      ? s.pattern
      : typeof s.format === 'string'
        ? FORMAT_PATTERNS[s.format]
        : undefined;
  }

  /** The GBNF of a pattern's characters, or undefined (and a note) when it is outside the subset. */
  private patternBody(pattern: string, hint: string): string | undefined {
    try {
      const maxRepeat = this.options.maxStringLength;
      return patternGbnf(
        pattern,
        maxRepeat === undefined ? {} : { maxRepeat: Math.min(maxRepeat, MAX_PATTERN_REPEAT) },
      );
    } catch (err) {
      if (!(err instanceof UnsupportedPattern)) throw err;
      this.note(
        `${hint}: pattern ${JSON.stringify(pattern)} is outside the supported subset (${err.message}): any string is allowed`,
      );
      return undefined;
    }
  }

  private mergeAll(base: Schema, parts: unknown[], hint: string): Schema {
    this.note(`${hint}: allOf is merged shallowly (properties, required, the rest of the last part wins)`);
    const merged: Schema = { ...base };
    for (const part of parts) {
      const p = isSchema(part) && typeof part.$ref === 'string' ? this.resolve(part.$ref, hint) : part;
      if (!isSchema(p)) continue;
      const properties = { ...(merged.properties as Schema), ...(p.properties as Schema) };
      const required = [...((merged.required as string[]) ?? []), ...((p.required as string[]) ?? [])];
      Object.assign(merged, p, { properties, required });
    }
    return merged;
  }

  private resolve(ref: string, hint: string): unknown {
    const m = /^#(?:\/(\$defs|definitions)\/([^/]+))?$/.exec(ref);
    if (!m)
      throw new ApiaryError(
        'USAGE',
        `schema at "${hint}": $ref "${ref}" is not local (#/$defs/… or #/definitions/…)`,
      );
    if (!m[1]) return this.rootSchema;
    const name = decodeURIComponent(m[2]!).replaceAll('~1', '/').replaceAll('~0', '~');
    const defs = this.rootSchema[m[1]];
    const target = isSchema(defs) ? defs[name] : undefined;
    if (target === undefined)
      throw new ApiaryError('USAGE', `schema at "${hint}": $ref "${ref}" names no definition`);
    return target;
  }

  /** A named rule per `$ref`, reserved before it is expanded: a recursive schema refers to itself. */
  private ref(ref: string, hint: string): string {
    const byRef = this.refs.get(this.rootSchema) ?? new Map<string, string>();
    this.refs.set(this.rootSchema, byRef);
    const known = byRef.get(ref);
    if (known !== undefined) return known;
    const target = this.resolve(ref, hint);
    const name = this.rules.name(`ref-${ref.split('/').at(-1) ?? 'root'}`);
    byRef.set(ref, name);
    this.rules.define(name, this.schemaRule(target, `${name}-def`));
    return name;
  }

  private typed(type: string, s: Schema, hint: string): string {
    switch (type) {
      case 'string':
        return this.string(s, hint);
      case 'integer':
        return this.integer(s, hint);
      case 'number':
        return this.number(s, hint);
      case 'boolean':
        return this.rules.rule('boolean', '"true" | "false"');
      case 'null':
        return this.rules.rule('null', '"null"');
      case 'object':
        return this.object(s, hint);
      case 'array':
        return this.array(s, hint);
      default:
        throw new ApiaryError('USAGE', `schema at "${hint}": unknown type "${type}"`);
    }
  }

  /** A schema whose own lower bound is above its upper bound allows nothing: a USAGE error naming the place. */
  private refuseEmptyRange(s: Schema, minKey: string, maxKey: string, what: string, hint: string): void {
    const min = num(s[minKey]);
    const max = num(s[maxKey]);
    if (min !== undefined && max !== undefined && min > max)
      throw new ApiaryError(
        'USAGE',
        `schema at "${hint}": ${minKey} ${min} > ${maxKey} ${max}: no ${what} fits`,
      );
  }

  /** A bound spelled out when small, else left out (or the builder's default) and said so. */
  private bound(value: number | undefined, fallback: number | undefined, what: string, hint: string) {
    if (value === undefined) return fallback;
    if (value <= MAX_SPELLED_BOUND) return value;
    this.note(`${hint}: ${what} ${value} is above ${MAX_SPELLED_BOUND} and not enforced by the grammar`);
    return fallback;
  }

  private jsonChar(): string {
    return this.rules.rule('char', '[^"\\\\\\x00-\\x1F] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})');
  }

  /**
   * A JSON string of at most `maxLength` characters, spelled out whatever its size up to llama.cpp's
   * repetition limit (2,000): for free text such as a final answer, where the builder's short default
   * would cut a real model's answer.
   */
  jsonString(hint: string, maxLength: number): string {
    const max = Math.min(Math.max(0, Math.floor(maxLength)), LLAMA_MAX_REPETITION);
    const char = this.jsonChar();
    return this.rules.rule(`${hint}-${max}`, `"\\"" ${repeat(char, 0, max)} "\\""`);
  }

  private string(s: Schema, hint: string): string {
    const pattern = this.patternOf(s);
    if (pattern !== undefined) {
      const body = this.patternBody(pattern, hint);
      if (body !== undefined) {
        if (s.minLength !== undefined || s.maxLength !== undefined)
          this.note(`${hint}: minLength/maxLength are not enforced together with a pattern`);
        return this.rules.rule(hint, `"\\"" ${body} "\\""`);
      }
    }
    this.refuseEmptyRange(s, 'minLength', 'maxLength', 'string', hint);
    const min = this.bound(num(s.minLength), 0, 'minLength', hint) ?? 0;
    const max = this.bound(num(s.maxLength), this.options.maxStringLength, 'maxLength', hint);
    const char = this.jsonChar();
    return this.rules.rule(
      `string${max === undefined ? '' : `-${max}`}`,
      `"\\"" ${repeat(char, min, max === undefined ? undefined : Math.max(min, max))} "\\""`,
    );
  }

  /** The integer bounds of a schema (inclusive), exclusive ones of both drafts included. */
  private integerBounds(s: Schema): { lo: number | undefined; hi: number | undefined } {
    let lo = num(s.minimum);
    let hi = num(s.maximum);
    const exMin = s.exclusiveMinimum;
    const exMax = s.exclusiveMaximum;
    if (typeof exMin === 'number') lo = Math.max(lo ?? -Infinity, Math.floor(exMin) + 1);
    else if (exMin === true && lo !== undefined) lo = Math.floor(lo) + 1;
    if (typeof exMax === 'number') hi = Math.min(hi ?? Infinity, Math.ceil(exMax) - 1);
    else if (exMax === true && hi !== undefined) hi = Math.ceil(hi) - 1;
    return {
      lo: lo === undefined ? undefined : Math.ceil(lo),
      hi: hi === undefined ? undefined : Math.floor(hi),
    };
  }

  private integer(s: Schema, hint: string): string {
    if (s.multipleOf !== undefined) this.note(`${hint}: multipleOf is not enforced`);
    const { lo, hi } = this.integerBounds(s);
    if (lo === undefined && hi === undefined) return this.rules.rule('integer', ANY_INTEGER);
    const body = integerRangeGbnf(lo ?? -MAX_INTEGER_MAGNITUDE, hi ?? MAX_INTEGER_MAGNITUDE);
    if (body === null)
      throw new ApiaryError('USAGE', `schema at "${hint}": no integer lies in [${lo}, ${hi}]`);
    return this.rules.rule(hint, body);
  }

  /**
   * Numbers without exponent. With bounds: the integers in range exactly, and a fraction only
   * after an integer part where every fraction stays in range (so 4.5 is offered for [0, 10] but
   * no fraction for [0.1, 0.9], which falls back to any number and says so).
   */
  private number(s: Schema, hint: string): string {
    if (s.multipleOf !== undefined) this.note(`${hint}: multipleOf is not enforced`);
    const lo = num(s.minimum) ?? num(s.exclusiveMinimum);
    const hi = num(s.maximum) ?? num(s.exclusiveMaximum);
    const loExclusive =
      typeof s.exclusiveMinimum === 'number' || (s.exclusiveMinimum === true && lo !== undefined);
    const hiExclusive =
      typeof s.exclusiveMaximum === 'number' || (s.exclusiveMaximum === true && hi !== undefined);
    if (lo === undefined && hi === undefined) return this.rules.rule('number', ANY_NUMBER);
    const L = lo ?? -MAX_INTEGER_MAGNITUDE;
    const H = hi ?? MAX_INTEGER_MAGNITUDE;
    const alternatives: string[] = [];
    const ints = integerRangeGbnf(
      loExclusive ? Math.floor(L) + 1 : Math.ceil(L),
      hiExclusive ? Math.ceil(H) - 1 : Math.floor(H),
    );
    if (ints !== null) alternatives.push(ints);
    // magnitudes m = i.f with i in [iLo, iHi]: i.f ≥ i ≥ mLo and i.f < i + 1 ≤ mHi
    const fractions = (mLo: number, mLoExclusive: boolean, mHi: number): string | null => {
      const iLo = Number.isInteger(mLo) && !mLoExclusive ? mLo : Math.floor(mLo) + 1;
      return integerRangeGbnf(Math.max(0, iLo), Math.floor(mHi - 1));
    };
    if (H > 0) {
      const positive = fractions(Math.max(L, 0), L >= 0 && loExclusive, H);
      if (positive !== null) alternatives.push(`${positive} ${FRACTION}`);
    }
    if (L < 0) {
      const negative = fractions(Math.max(-H, 0), H <= 0 && hiExclusive, -L);
      if (negative !== null) alternatives.push(`"-" ${negative} ${FRACTION}`);
    }
    if (alternatives.length === 0) {
      this.note(`${hint}: no value of [${L}, ${H}] can be generated exactly: any number is allowed`);
      return this.rules.rule('number', ANY_NUMBER);
    }
    return this.rules.rule(hint, alternatives.join(' | '));
  }

  private object(s: Schema, hint: string): string {
    const ws = this.ws;
    const properties = isSchema(s.properties) ? Object.entries(s.properties) : [];
    if (properties.length === 0) {
      if (s.additionalProperties === false) return this.rules.rule('empty-object', `"{" ${ws} "}"`);
      return this.freeObject(s, hint);
    }
    if (s.additionalProperties !== undefined && s.additionalProperties !== false)
      this.note(`${hint}: only the declared properties are generated (additionalProperties is ignored)`);
    const required = new Set(
      Array.isArray(s.required) ? s.required.filter((r) => typeof r === 'string') : [],
    );
    const pairs = properties.map(([key, sub]) => {
      const value = this.schemaRule(sub, `${hint}-${key}`);
      return {
        required: required.has(key),
        pair: `${gbnfLiteral(`${JSON.stringify(key)}:`)} ${ws} ${value}`,
      };
    });
    // after[k]: pairs k.. when one was written already (each after a comma); first[k]: none written yet
    const after: string[] = new Array(pairs.length + 1).fill('');
    for (let k = pairs.length - 1; k >= 0; k--) {
      const p = pairs[k]!;
      const item = p.required ? `"," ${ws} ${p.pair}` : `("," ${ws} ${p.pair})?`;
      after[k] = `${item} ${after[k + 1]}`.trim();
    }
    // first: the rule of pairs k.. when none was written yet ('' for k = n: nothing left)
    let first = '';
    for (let k = pairs.length - 1; k >= 0; k--) {
      const p = pairs[k]!;
      const withIt = `${p.pair} ${after[k + 1]}`.trim();
      const body = p.required || first === '' ? withIt : `${withIt} | ${first}`;
      first = this.rules.rule(`${hint}-from-${k}`, body);
    }
    const allOptional = pairs.every((p) => !p.required);
    const body = allOptional ? `"{" ${ws} (${first} ${ws})? "}"` : `"{" ${ws} ${first} ${ws} "}"`;
    return this.rules.rule(hint, body);
  }

  private freeObject(s: Schema, hint: string): string {
    const ws = this.ws;
    const valueSchema = isSchema(s.additionalProperties) ? s.additionalProperties : true;
    const value = this.schemaRule(valueSchema, `${hint}-value`);
    const key = this.string({ maxLength: Math.min(this.options.maxStringLength ?? 32, 32) }, 'key');
    const pair = `${key} ":" ${ws} ${value}`;
    const max = this.options.maxItems;
    const more = repeat(`("," ${ws} ${pair})`, 0, max === undefined ? undefined : Math.max(0, max - 1));
    const body = max === 0 ? `"{" ${ws} "}"` : `"{" ${ws} (${pair} ${more} ${ws})? "}"`;
    return this.rules.rule(hint, body);
  }

  private array(s: Schema, hint: string): string {
    const ws = this.ws;
    const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
    if (tuple) {
      this.note(`${hint}: a tuple is generated with exactly its ${tuple.length} item(s)`);
      const items = tuple.map((t, i) => this.schemaRule(t, `${hint}-${i}`));
      const body = items.length === 0 ? '' : `${items.join(` "," ${ws} `)} ${ws}`;
      return this.rules.rule(hint, `"[" ${ws} ${body} "]"`);
    }
    const item = this.schemaRule(s.items ?? true, `${hint}-item`);
    this.refuseEmptyRange(s, 'minItems', 'maxItems', 'array', hint);
    const min = this.bound(num(s.minItems), 0, 'minItems', hint) ?? 0;
    const max = this.bound(num(s.maxItems), this.options.maxItems, 'maxItems', hint);
    if (max === 0) return this.rules.rule('empty-array', `"[" ${ws} "]"`);
    const rest = repeat(
      `("," ${ws} ${item})`,
      Math.max(0, min - 1),
      max === undefined ? undefined : Math.max(min, max) - 1,
    );
    const items = `${item} ${rest}`;
    return this.rules.rule(
      hint,
      min === 0 ? `"[" ${ws} (${items} ${ws})? "]"` : `"[" ${ws} ${items} ${ws} "]"`,
    );
  }

  /** Any JSON value nested at most `depth` levels. */
  private anyValue(depth: number): string {
    const scalars = [
      this.string({}, 'string'),
      this.rules.rule('number', ANY_NUMBER),
      this.rules.rule('boolean', '"true" | "false"'),
      this.rules.rule('null', '"null"'),
    ];
    if (depth <= 0) return this.rules.rule('scalar', scalars.join(' | '));
    const inner = this.anyValue(depth - 1);
    const ws = this.ws;
    const key = this.string({ maxLength: Math.min(this.options.maxStringLength ?? 32, 32) }, 'key');
    const max = this.options.maxItems;
    const more = (x: string) =>
      repeat(`("," ${ws} ${x})`, 0, max === undefined ? undefined : Math.max(0, max - 1));
    const pair = `${key} ":" ${ws} ${inner}`;
    const object = `"{" ${ws} (${pair} ${more(pair)} ${ws})? "}"`;
    const array = `"[" ${ws} (${inner} ${more(inner)} ${ws})? "]"`;
    return this.rules.rule(`any-${depth}`, [...scalars, object, array].join(' | '));
  }
}

/** GBNF (root rule `root`) for the JSON values `schema` accepts; see docs/models.md for the subset. */
export function jsonSchemaGrammar(
  schema: Record<string, unknown>,
  options: JsonSchemaGrammarOptions = {},
): string {
  const builder = new JsonGrammarBuilder(options);
  return builder.grammar(builder.value(schema));
}
