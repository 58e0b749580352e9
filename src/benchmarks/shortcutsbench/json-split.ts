/**
 * Splits the text of one JSON array or object into the texts of its top-level elements, fed in
 * chunks of any size, so that a file of hundreds of MB is parsed one record at a time (bounded
 * memory: the current element plus one chunk). Each element's text is then parsed by the caller
 * with the lexeme-preserving parser. Only the structure is checked here (brackets, strings, commas,
 * colons); a malformed element fails when the caller parses it.
 *
 * No streaming JSON library is installed; this is the small part of one that the gold file needs.
 */

export interface TopLevelElement {
  /** 0-based position among the container's elements. */
  index: number;
  /** The member name, for an object. */
  key?: string;
  /** The element's JSON text. */
  text: string;
}

type State = 'start' | 'between' | 'key' | 'afterKey' | 'beforeValue' | 'value' | 'end';

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export class TopLevelJsonSplitter {
  /** The top-level container, once its first character was read. */
  kind: 'array' | 'object' | undefined;
  private state: State = 'start';
  private offset = 0; // characters consumed before the current chunk (for error positions)
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false; // the current value is a number/true/false/null
  private stringValue = false; // the current value is a string
  private parts: string[] = [];
  private key: string | undefined;
  private index = 0;
  private needComma = false;

  private fail(at: number, what: string): never {
    throw new SyntaxError(`${what} at character ${this.offset + at}`);
  }

  /** Feeds the next chunk; returns the elements completed in it. */
  push(chunk: string): TopLevelElement[] {
    const out: TopLevelElement[] = [];
    const n = chunk.length;
    let start = this.state === 'value' || this.state === 'key' ? 0 : -1;
    const finish = (end: number) => {
      this.parts.push(chunk.slice(start, end));
      const text = this.parts.join('');
      this.parts = [];
      out.push(
        this.key === undefined ? { index: this.index, text } : { index: this.index, key: this.key, text },
      );
      this.index++;
      this.key = undefined;
      this.state = 'between';
      this.needComma = true;
    };
    for (let i = 0; i < n; i++) {
      const c = chunk.charCodeAt(i);
      switch (this.state) {
        case 'value':
          if (this.inString) {
            if (this.escaped) this.escaped = false;
            else if (c === BACKSLASH) this.escaped = true;
            else if (c === QUOTE) {
              this.inString = false;
              if (this.stringValue) finish(i + 1);
            }
          } else if (this.scalar) {
            if (isSpace(c) || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET) {
              finish(i);
              i--; // the delimiter belongs to the container
            }
          } else if (c === QUOTE) this.inString = true;
          else if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth++;
          else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
            this.depth--;
            if (this.depth === 0) finish(i + 1);
          }
          break;
        case 'between': {
          if (isSpace(c)) break;
          const close = this.kind === 'array' ? CLOSE_BRACKET : CLOSE_BRACE;
          if (c === close) {
            this.state = 'end';
            break;
          }
          if (c === COMMA) {
            if (!this.needComma) this.fail(i, 'unexpected ","');
            this.needComma = false;
            break;
          }
          if (this.needComma) this.fail(i, 'expected "," between elements');
          if (this.kind === 'object') {
            if (c !== QUOTE) this.fail(i, 'expected a member name');
            this.state = 'key';
            start = i;
          } else start = this.beginValue(c, i);
          break;
        }
        case 'key':
          if (this.escaped) this.escaped = false;
          else if (c === BACKSLASH) this.escaped = true;
          else if (c === QUOTE && i > start) {
            this.parts.push(chunk.slice(start, i + 1));
            this.key = JSON.parse(this.parts.join('')) as string;
            this.parts = [];
            this.state = 'afterKey';
          }
          break;
        case 'afterKey':
          if (isSpace(c)) break;
          if (c !== COLON) this.fail(i, 'expected ":"');
          this.state = 'beforeValue';
          break;
        case 'beforeValue':
          if (isSpace(c)) break;
          start = this.beginValue(c, i);
          break;
        case 'start':
          if (isSpace(c) || (c === 0xfeff && this.offset + i === 0)) break;
          if (c === OPEN_BRACKET) this.kind = 'array';
          else if (c === OPEN_BRACE) this.kind = 'object';
          else this.fail(i, 'expected a JSON array or object');
          this.state = 'between';
          break;
        case 'end':
          if (!isSpace(c)) this.fail(i, 'unexpected text after the top-level value');
          break;
      }
    }
    if (this.state === 'value' || this.state === 'key') this.parts.push(chunk.slice(start));
    this.offset += n;
    return out;
  }

  private beginValue(c: number, i: number): number {
    if (c === COMMA || c === COLON || c === CLOSE_BRACE || c === CLOSE_BRACKET)
      this.fail(i, 'expected a value');
    this.state = 'value';
    this.depth = 0;
    this.scalar = false;
    this.stringValue = false;
    if (c === OPEN_BRACE || c === OPEN_BRACKET) this.depth = 1;
    else if (c === QUOTE) {
      this.inString = true;
      this.stringValue = true;
    } else this.scalar = true;
    return i;
  }

  /** Ends the input; throws if the container was not closed. */
  end(): void {
    if (this.state !== 'end')
      this.fail(0, this.state === 'start' ? 'empty input' : 'unexpected end of input');
  }
}
