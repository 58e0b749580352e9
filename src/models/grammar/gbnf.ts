import { ApiaryError } from '../../shared/index.js';

/**
 * GBNF text, the grammar language of llama.cpp: `name ::= body` rules, `"literals"`, `[classes]`,
 * groups, `|`, `? * +` and `{m,n}`. Rule names are letters, digits and dashes only. Everything
 * but plain printable ASCII is written as a `\xHH` / `\uHHHH` escape, the escapes llama.cpp's
 * parser knows in literals and classes alike (it has no `\-` or `\^`).
 */

const hex = (code: number, width: number) => code.toString(16).toUpperCase().padStart(width, '0');

/** One code point as a GBNF escape. */
function escapeCode(code: number): string {
  if (code <= 0xff) return `\\x${hex(code, 2)}`;
  if (code <= 0xffff) return `\\u${hex(code, 4)}`;
  return `\\U${hex(code, 8)}`;
}

const isPlainLiteralChar = (code: number) => code >= 0x20 && code < 0x7f && code !== 0x22 && code !== 0x5c;
const isPlainClassChar = (code: number) =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);

/** `text` as a GBNF literal: `"..."` matching exactly these characters. */
export function gbnfLiteral(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    out += isPlainLiteralChar(code) ? ch : escapeCode(code);
  }
  return `${out}"`;
}

/** One character of a class, escaped unless it is a letter or digit. */
export function gbnfClassChar(code: number): string {
  return isPlainClassChar(code) ? String.fromCodePoint(code) : escapeCode(code);
}

/** A class of code point ranges (inclusive); `negated` gives `[^...]`. */
export function gbnfClass(ranges: ReadonlyArray<readonly [number, number]>, negated = false): string {
  const body = ranges
    .map(([lo, hi]) => (lo === hi ? gbnfClassChar(lo) : `${gbnfClassChar(lo)}-${gbnfClassChar(hi)}`))
    .join('');
  return `[${negated ? '^' : ''}${body}]`;
}

export interface GrammarLimits {
  /** Refuse a grammar longer than this many characters (default 200,000). */
  maxGrammarChars?: number;
}

const DEFAULT_MAX_GRAMMAR_CHARS = 200_000;

/**
 * Rules collected under unique names. A body given twice gets the first rule's name back, so
 * shared shapes (a string of at most 12 characters) are written once.
 */
export class GbnfRules {
  private readonly bodies = new Map<string, string>();
  private readonly byBody = new Map<string, string>();
  private readonly maxChars: number;
  private chars = 0;

  constructor(limits: GrammarLimits = {}) {
    this.maxChars = limits.maxGrammarChars ?? DEFAULT_MAX_GRAMMAR_CHARS;
  }

  /** A fresh rule name from a hint (`root` stays `root` the first time). */
  name(hint: string): string {
    const base =
      hint
        .replace(/[^A-Za-z0-9-]+/g, '-')
        .replace(/-+/g, '-')
        .replace(/^-|-$/g, '')
        .slice(0, 40) || 'r';
    let name = base;
    for (let i = 2; this.bodies.has(name); i++) name = `${base}-${i}`;
    this.bodies.set(name, '');
    return name;
  }

  /** Sets the body of a name reserved by {@link name} (recursive rules reserve first, define after). */
  define(name: string, body: string): string {
    this.bodies.set(name, body);
    this.byBody.set(body, name);
    this.chars += name.length + body.length + 6;
    if (this.chars > this.maxChars)
      throw new ApiaryError(
        'USAGE',
        `the output grammar grew past ${this.maxChars} characters (at rule "${name}"): the schema is too large to constrain; simplify it or raise maxGrammarChars`,
      );
    return name;
  }

  /** A rule with this body: an existing one with the same body, else a new one named from `hint`. */
  rule(hint: string, body: string): string {
    return this.byBody.get(body) ?? this.define(this.name(hint), body);
  }

  /** The grammar text, `root` first. */
  text(): string {
    const lines: string[] = [];
    const root = this.bodies.get('root');
    if (root !== undefined) lines.push(`root ::= ${root}`);
    for (const [name, body] of this.bodies) if (name !== 'root') lines.push(`${name} ::= ${body}`);
    return `${lines.join('\n')}\n`;
  }
}
