/**
 * Reading a vision-language model's free-text reply into the exact output GTA's tools give
 * (AgentLego's detector, counter and OCR formats). Models add words, fences and odd number
 * formats; each parser takes what it needs and ignores the rest.
 */

/** Python's `'{:.0f}'.format(x)`: round half to even, `-0` for small negatives. */
export function pyFormat0f(x: number): string {
  let r = Math.round(x);
  if (Math.abs(x % 1) === 0.5) r = 2 * Math.round(x / 2);
  if (r === 0 && (x < 0 || Object.is(x, -0))) return '-0';
  return String(r);
}

export interface DetectedBox {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** Confidence 0–100. */
  score: number;
}

const NUM = '(-?\\d+(?:\\.\\d+)?)';
const BOX = new RegExp(`[([]\\s*${NUM}\\s*,\\s*${NUM}\\s*,\\s*${NUM}\\s*,\\s*${NUM}\\s*[)\\]]`, 'g');
const SCORE = /score\s*[:=]?\s*(\d+(?:\.\d+)?)\s*(%)?/i;

/**
 * Every `(x1, y1, x2, y2)` (or `[…]`) in the reply, with the `score S` that follows it on the same
 * line. A score in (0, 1] written with a decimal point is a probability and is scaled to 0–100; a
 * box without a score gets 100. Corners are put in order and, given the image size, clamped to it.
 */
export function parseBoxes(reply: string, size?: { width: number; height: number }): DetectedBox[] {
  const boxes: DetectedBox[] = [];
  for (const m of reply.matchAll(BOX)) {
    const [a, b, c, d] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
    const rest = reply.slice(m.index + m[0].length).split('\n', 1)[0] ?? '';
    const s = SCORE.exec(rest);
    let score = 100;
    if (s) {
      score = Number(s[1]);
      if (!s[2] && s[1]!.includes('.') && score <= 1) score *= 100;
    }
    const clampX = (v: number) => (size ? Math.min(Math.max(v, 0), size.width) : v);
    const clampY = (v: number) => (size ? Math.min(Math.max(v, 0), size.height) : v);
    boxes.push({
      x1: clampX(Math.min(a, c)),
      y1: clampY(Math.min(b, d)),
      x2: clampX(Math.max(a, c)),
      y2: clampY(Math.max(b, d)),
      score: Math.min(score, 100),
    });
  }
  return boxes;
}

/**
 * AgentLego's TextToBbox text: `No object found.` without boxes; with `top1` the best-scored box
 * (the first among equals), otherwise those scoring over 50 (which may leave none: an empty
 * text, as AgentLego gives); lines `(x1, y1, x2, y2), score S` with `{:.0f}` numbers.
 */
export function formatBoxes(boxes: readonly DetectedBox[], top1: boolean): string {
  if (boxes.length === 0) return 'No object found.';
  let kept: DetectedBox[];
  if (top1) {
    let best = boxes[0]!;
    for (const b of boxes) if (b.score > best.score) best = b;
    kept = [best];
  } else kept = boxes.filter((b) => b.score > 50);
  return kept
    .map((b) => `(${[b.x1, b.y1, b.x2, b.y2].map(pyFormat0f).join(', ')}), score ${pyFormat0f(b.score)}`)
    .join('\n');
}

const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];

/** The count in a reply: the first whole number in digits, else the first number word (zero–twenty, `no`/`none` = 0). */
export function parseCount(reply: string): number | undefined {
  const digits = /(?<![\d.])\d+(?![\d.]*\d)/.exec(reply.replace(/(\d),(\d{3})/g, '$1$2'));
  if (digits) return Number(digits[0]);
  for (const word of reply.toLowerCase().match(/[a-z]+/g) ?? []) {
    const n = NUMBER_WORDS.indexOf(word);
    if (n >= 0) return n;
    if (word === 'no' || word === 'none') return 0;
  }
  return undefined;
}

/** LaTeX from a reply: code fences and math delimiters (`$$`, `$`, `\[ \]`, `\( \)`) removed. */
export function parseLatex(reply: string): string {
  let text = reply.trim();
  const fence = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?```$/.exec(text);
  if (fence) text = fence[1]!.trim();
  for (const [open, close] of [
    ['$$', '$$'],
    ['\\[', '\\]'],
    ['\\(', '\\)'],
    ['$', '$'],
  ] as const) {
    if (text.length >= open.length + close.length && text.startsWith(open) && text.endsWith(close)) {
      text = text.slice(open.length, text.length - close.length).trim();
      break;
    }
  }
  return text;
}

/**
 * The `(x1, y1, x2, y2)` of RegionAttributeDescription: the first four numbers of the text, each
 * truncated to an integer (AgentLego's `parse_multi_float` then `int`); undefined without four.
 */
export function parseBboxArg(text: string): [number, number, number, number] | undefined {
  const nums = text.match(/-?\d+(?:\.\d+)?/g);
  if (!nums || nums.length < 4) return undefined;
  return nums.slice(0, 4).map((n) => Math.trunc(Number(n))) as [number, number, number, number];
}
