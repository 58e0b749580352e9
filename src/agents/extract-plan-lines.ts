/**
 * Tolerant cleaner for model replies: keeps only lines that look like AppBench plan lines
 * (`App: [outs = api(args)]`) and strips what models wrap around them. Never throws.
 *
 * Per line: drop code-fence lines (```), remove `**` emphasis (and `__` wrapping a whole line) and inline backticks,
 * strip list markers (`1.`, `2)`, `-`, `*`, `•`, `Step 3:`), then keep the line if it matches
 * `Word: [ ... = name( ... ) ... ]`. A bare call written with the App prefix in the API name
 * (`[x = Rents_getride(...)]` or `x = Rents_getride(...)`) is rewritten to `Rents: [x = Rents_getride(...)]`;
 * a line holding only `App:` is joined with the call on the next line.
 */
const PLAN_LINE = /^([A-Za-z_]\w*)\s*:\s*\[[^\]]*=\s*\w+\s*\(.*\)[^\]]*\]$/;
const BARE_CALL = /^\[?\s*([^[\]=]+?=\s*([A-Z][A-Za-z]*)_\w+\s*\(.*\))\s*\]?$/;
const LIST_MARKER = /^(?:(?:step\s*)?\d+\s*[.):]\s*|[-*•+]\s+|>\s*)/i;

export function cleanPlanLine(line: string): string | undefined {
  let s = line.trim();
  if (s.startsWith('```')) return undefined;
  s = s
    .replace(/\*\*/g, '')
    .replace(/^__(.*)__$/, '$1')
    .replace(/`/g, '')
    .trim();
  for (let i = 0; i < 3; i++) {
    const next = s.replace(LIST_MARKER, '').trim();
    if (next === s) break;
    s = next;
  }
  // a trailing comma or semicolon after the closing bracket
  s = s.replace(/\]\s*[,;.]\s*$/, ']');
  const m = PLAN_LINE.exec(s);
  if (m) return `${m[1]}: ${s.slice(s.indexOf('[')).trim()}`.replace(/^(\w+): \[\s*/, '$1: [');
  const bare = BARE_CALL.exec(s);
  if (bare) return `${bare[2]}: [${bare[1]!.trim()}]`;
  return undefined;
}

/** The plan lines of a reply, cleaned and joined with `\n` ('' when there are none). */
export function extractPlanLines(text: string): string {
  if (typeof text !== 'string' || text.length === 0) return '';
  const out: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    let cleaned = cleanPlanLine(line);
    // "Rents:" alone, the call on the next line
    if (cleaned === undefined && /^\W*[A-Za-z_]\w*\s*:\W*$/.test(line) && i + 1 < lines.length) {
      const joined = cleanPlanLine(`${line.replace(/[*`\s]+$/, '')} ${lines[i + 1]?.trim() ?? ''}`);
      if (joined !== undefined) {
        cleaned = joined;
        i++;
      }
    }
    if (cleaned !== undefined) out.push(cleaned);
  }
  return out.join('\n');
}
