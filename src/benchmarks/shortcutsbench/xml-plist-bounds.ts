import { InputInvalidError } from '../../shared/index.js';

/**
 * Bounds of an XML plist, checked in one linear pass over its text before any parser sees it: the
 * `plist` package converts the DOM recursively (a deep file overflows the stack) and builds the whole
 * DOM first (a file of `<true/>` holds millions of elements).
 */
const XML_PLIST_LIMITS = {
  /** Nesting of elements. Shortcuts nest a dozen levels; 1000 is Python's recursion limit. */
  maxDepth: 1000,
  /** Elements, as many as a binary plist may expand to (BINARY_PLIST_LIMITS.maxNodes). */
  maxElements: 1_000_000,
};

/** The name of the tag at `lastIndex` (sticky: no copy of the text per tag). */
const TAG_NAME = /<\/?([^\s/>]+)/y;

/** Where the construct opening at a `<` ends, for the ones that are not elements. */
const SKIPPED: Array<[open: string, close: string]> = [
  ['<!--', '-->'],
  ['<![CDATA[', ']]>'],
  ['<?', '?>'],
];

/**
 * Throws INPUT_INVALID naming `file` and the limit when the XML nests deeper than maxDepth or holds
 * more than maxElements elements. Approximate where it cannot matter (a `>` inside an attribute
 * value); it never parses, it only counts tags.
 */
export function checkXmlPlistBounds(xml: string, file: string, limits = XML_PLIST_LIMITS): void {
  let depth = 0;
  let elements = 0;
  /** Names of the open elements: a close tag must match the innermost (the parser only warns and goes on). */
  const open: string[] = [];
  const malformed = (at: number, why: string) =>
    new InputInvalidError({ file }, `not a readable xml-plist: line ${lineOf(xml, at)}: ${why}`);
  let i = xml.indexOf('<');
  while (i >= 0) {
    const skipped = SKIPPED.find(([open]) => xml.startsWith(open, i));
    let end: number;
    if (skipped) {
      end = xml.indexOf(skipped[1], i + skipped[0].length);
      end = end < 0 ? xml.length : end + skipped[1].length;
    } else if (xml.startsWith('<!', i)) {
      // <!DOCTYPE …>, with an internal subset `[…]` that holds `>` of its own
      const gt = xml.indexOf('>', i);
      const bracket = xml.indexOf('[', i);
      const close = bracket >= 0 && (gt < 0 || bracket < gt) ? xml.indexOf(']', bracket) : i;
      end = close < 0 ? xml.length : xml.indexOf('>', close);
      end = end < 0 ? xml.length : end + 1;
    } else {
      const gt = xml.indexOf('>', i);
      end = gt < 0 ? xml.length : gt + 1;
      TAG_NAME.lastIndex = i;
      const name = TAG_NAME.exec(xml)?.[1] ?? '';
      if (gt < 0) throw malformed(i, `<${name} is never closed with ">"`);
      if (xml[i + 1] === '/') {
        depth--;
        const expected = open.pop();
        if (expected !== name)
          throw malformed(
            i,
            expected === undefined
              ? `</${name}> closes nothing`
              : `</${name}> where </${expected}> was expected`,
          );
      } else {
        if (++elements > limits.maxElements)
          throw new InputInvalidError(
            { file },
            `not a readable xml-plist: more than ${limits.maxElements.toLocaleString('en-US')} elements (the limit for a shortcut)`,
          );
        if (xml[gt - 1] !== '/') {
          if (++depth > limits.maxDepth)
            throw new InputInvalidError(
              { file },
              `not a readable xml-plist: nested deeper than ${limits.maxDepth} levels (the limit for a shortcut)`,
            );
          open.push(name);
        }
      }
    }
    i = xml.indexOf('<', end);
  }
  if (open.length) throw malformed(xml.length, `<${open.at(-1)}> is never closed (the file ends first)`);
}

function lineOf(text: string, at: number): number {
  let line = 1;
  for (let k = text.indexOf('\n'); k >= 0 && k < at; k = text.indexOf('\n', k + 1)) line++;
  return line;
}
