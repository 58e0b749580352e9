/**
 * Rule-based value extraction for the baseline agent: dates relative to the current date,
 * clock times, counts, money amounts and capitalised entity spans. Every function returns the
 * matches in reading order with their character offsets. See docs/baseline.md.
 */

export interface Found<T = string> {
  value: T;
  start: number;
  end: number;
}

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
const MONTH_RE =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  single: 1,
  two: 2,
  couple: 2,
  pair: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};
const NUMBER_WORD_RE = 'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve';
const ORDINAL_WORDS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
};

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `YYYY-MM-DD` of a UTC date. */
function iso(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function parseIsoDate(text: string): Date {
  const [y, m, d] = text.split('-').map(Number);
  return new Date(Date.UTC(y ?? 2019, (m ?? 1) - 1, d ?? 1));
}

function addDays(d: Date, n: number): Date {
  return new Date(d.getTime() + n * 86_400_000);
}

function monthIndex(word: string): number {
  const w = word.toLowerCase().slice(0, 3);
  return MONTHS.findIndex((m) => m.startsWith(w));
}

/** Year for a month/day without a year: the current year, or next year when it already passed. */
function dateInYear(today: Date, month: number, day: number): Date {
  let y = today.getUTCFullYear();
  const candidate = new Date(Date.UTC(y, month, day));
  if (candidate < today) y += 1;
  return new Date(Date.UTC(y, month, day));
}

/** A day of the current month, or of the next month when that day already passed. */
function dayOfMonth(today: Date, day: number): Date {
  const candidate = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), day));
  if (candidate >= today) return candidate;
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, day));
}

function overlaps(found: readonly Found<unknown>[], start: number, end: number): boolean {
  return found.some((f) => start < f.end && end > f.start);
}

/**
 * Dates in `text`, resolved against `currentDate` (`YYYY-MM-DD`):
 * ISO dates; "March 7th", "Mar 7", "7th of March", "the 7th of March"; "the 3rd", "the 9th of
 * the month", "on the 14th" (current month, next month if already past); "today", "tonight",
 * "tomorrow", "day after tomorrow"; "next Friday" (the Friday of next week: 7–13 days ahead when
 * today is earlier in the week… simplified to the first Friday strictly after today + 7 days if
 * today is Friday), "this/on Friday" (the next Friday, today included).
 */
export function findDates(text: string, currentDate: string): Found[] {
  const today = parseIsoDate(currentDate);
  const out: Found[] = [];
  const add = (start: number, end: number, d: Date) => {
    if (!overlaps(out, start, end)) out.push({ value: iso(d), start, end });
  };
  const scan = (re: RegExp, fn: (m: RegExpExecArray) => Date | undefined) => {
    for (const m of text.matchAll(re)) {
      const d = fn(m as RegExpExecArray);
      if (d && !Number.isNaN(d.getTime())) add(m.index ?? 0, (m.index ?? 0) + m[0].length, d);
    }
  };
  scan(/\b(\d{4})-(\d{2})-(\d{2})\b/g, (m) => parseIsoDate(m[0]));
  // "March 7th", "March 7", "Mar. 7"
  scan(new RegExp(`\\b${MONTH_RE}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?!:)`, 'gi'), (m) => {
    const month = monthIndex(m[1] ?? '');
    const day = Number(m[2]);
    return month >= 0 && day >= 1 && day <= 31 ? dateInYear(today, month, day) : undefined;
  });
  // "7th of March", "the 7th of March", "7 March"
  scan(new RegExp(`\\b(?:the\\s+)?(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_RE}\\b`, 'gi'), (m) => {
    const month = monthIndex(m[2] ?? '');
    const day = Number(m[1]);
    return month >= 0 && day >= 1 && day <= 31 ? dateInYear(today, month, day) : undefined;
  });
  // "the 3rd", "the 9th of the month", "on the 14th", "the 13th of this month"
  scan(/\b(?:the|on)\s+(\d{1,2})(?:st|nd|rd|th)\b(?:\s+of\s+(?:the|this)\s+month)?/gi, (m) => {
    const day = Number(m[1]);
    return day >= 1 && day <= 31 ? dayOfMonth(today, day) : undefined;
  });
  scan(
    /\b(?:the\s+)?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\s+of\s+(?:the\s+|this\s+)?month\b/gi,
    (m) => dayOfMonth(today, ORDINAL_WORDS[(m[1] ?? '').toLowerCase()] ?? 1),
  );
  scan(/\b(?:the\s+)?day\s+after\s+tomorrow\b/gi, () => addDays(today, 2));
  scan(/\btomorrow\b/gi, () => addDays(today, 1));
  scan(/\b(?:today|tonight|this\s+(?:evening|afternoon|morning))\b/gi, () => today);
  const weekday = (name: string, next: boolean): Date => {
    const target = WEEKDAYS.indexOf(name.toLowerCase());
    let delta = (target - today.getUTCDay() + 7) % 7;
    if (next && delta === 0) delta = 7;
    return addDays(today, delta);
  };
  // a weekday right before an explicit date ("on Monday, March 2nd") is not a date of its own
  const explicitFollows = (m: RegExpExecArray) =>
    new RegExp(
      `^,?\\s*(?:the\\s+\\d|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_RE}|${MONTH_RE})`,
      'i',
    ).test(text.slice((m.index ?? 0) + m[0].length));
  scan(/\b(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s+(this|next)\s+week\b/gi, (m) =>
    weekday(m[1] ?? '', (m[2] ?? '').toLowerCase() === 'next'),
  );
  scan(/\b(next|this|on|coming)\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/gi, (m) =>
    explicitFollows(m) ? undefined : weekday(m[2] ?? '', (m[1] ?? '').toLowerCase() === 'next'),
  );
  return out.sort((a, b) => a.start - b.start);
}

/**
 * Clock times as `HH:MM`: "1:30 pm", "1:30pm", "8 am", "8 o'clock pm", "13:30", "noon",
 * "midnight", "6 in the evening". A number without am/pm or a colon is not a time.
 */
export function findTimes(text: string): Found[] {
  const out: Found[] = [];
  const add = (start: number, end: number, h: number, min: number) => {
    if (h < 0 || h > 23 || min < 0 || min > 59 || overlaps(out, start, end)) return;
    out.push({ value: `${pad(h)}:${pad(min)}`, start, end });
  };
  const to24 = (h: number, ampm: string | undefined): number => {
    const a = (ampm ?? '').toLowerCase().replace(/\./g, '');
    if (a.startsWith('p') && h < 12) return h + 12;
    if (a.startsWith('a') && h === 12) return 0;
    return h;
  };
  for (const m of text.matchAll(/\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])/gi))
    add(m.index ?? 0, (m.index ?? 0) + m[0].length, to24(Number(m[1]), m[3]), Number(m[2] ?? 0));
  for (const m of text.matchAll(
    /\b(\d{1,2})(?::(\d{2}))?\s+(?:o'clock\s+)?in\s+the\s+(morning|afternoon|evening|night)\b/gi,
  )) {
    const part = (m[3] ?? '').toLowerCase();
    add(
      m.index ?? 0,
      (m.index ?? 0) + m[0].length,
      to24(Number(m[1]), part === 'morning' ? 'am' : 'pm'),
      Number(m[2] ?? 0),
    );
  }
  for (const m of text.matchAll(/\b([01]?\d|2[0-3]):([0-5]\d)\b/g))
    add(m.index ?? 0, (m.index ?? 0) + m[0].length, Number(m[1]), Number(m[2]));
  for (const m of text.matchAll(/\b(noon|midday|midnight)\b/gi))
    add(m.index ?? 0, (m.index ?? 0) + m[0].length, (m[1] ?? '').toLowerCase() === 'midnight' ? 0 : 12, 0);
  return out.sort((a, b) => a.start - b.start);
}

function numberValue(token: string): number | undefined {
  if (/^\d+$/.test(token)) return Number(token);
  return NUMBER_WORDS[token.toLowerCase()];
}

/**
 * Counts of the given nouns: "3 people", "four tickets", "a ticket", "2 adults", and
 * "for 3" / "party of four" when `bareFor` is set (a number after "for" not followed by a
 * unit such as am/pm, days, nights, $, or an ordinal suffix).
 */
export function findCounts(text: string, nouns: readonly string[], bareFor = false): Found<number>[] {
  const out: Found<number>[] = [];
  if (nouns.length > 0) {
    const re = new RegExp(
      `\\b(?:(\\d{1,2}|${NUMBER_WORD_RE}|couple(?:\\s+of)?|pair(?:\\s+of)?)\\s+(?:[a-z-]+\\s+){0,2}?|(a|an|single)\\s+)(?:${nouns.join('|')})\\b`,
      'gi',
    );
    for (const m of text.matchAll(re)) {
      const word = (m[1] ?? m[2] ?? '').split(/\s+/)[0] ?? '';
      const n = numberValue(word);
      if (n !== undefined && !overlaps(out, m.index ?? 0, (m.index ?? 0) + m[0].length))
        out.push({ value: n, start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
    }
  }
  if (bareFor) {
    const re = new RegExp(
      `\\b(?:for|party\\s+of|group\\s+of)\\s+(\\d{1,2}|${NUMBER_WORD_RE})\\b(?!\\s*(?::|am\\b|pm\\b|a\\.m|p\\.m|o'clock|days?\\b|nights?\\b|weeks?\\b|hours?\\b|minutes?\\b|%|st\\b|nd\\b|rd\\b|th\\b))`,
      'gi',
    );
    for (const m of text.matchAll(re)) {
      const n = numberValue(m[1] ?? '');
      if (n !== undefined && !overlaps(out, m.index ?? 0, (m.index ?? 0) + m[0].length))
        out.push({ value: n, start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Money amounts: "$45", "$1,200.50", "45 dollars" → `45`, `1200.50`, `45`. */
export function findAmounts(text: string): Found[] {
  const out: Found[] = [];
  for (const m of text.matchAll(
    /\$\s?(\d[\d,]*(?:\.\d+)?)|\b(\d[\d,]*(?:\.\d+)?)\s*(?:dollars|usd|bucks)\b/gi,
  ))
    out.push({
      value: (m[1] ?? m[2] ?? '').replace(/,/g, ''),
      start: m.index ?? 0,
      end: (m.index ?? 0) + m[0].length,
    });
  return out;
}

/** Double-quoted or “curly-quoted” spans (titles: movies, events, songs). */
export function findQuoted(text: string): Found[] {
  const out: Found[] = [];
  for (const m of text.matchAll(/["“”]([^"“”]{1,120})["“”]/g))
    out.push({ value: (m[1] ?? '').trim(), start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
  return out;
}

const NAME_CONNECTORS = new Set(['of', 'the', 'de', 'la', 'le', 'del', 'da', 'and', '&', "'n'"]);
const NOT_NAME_START = new Set([
  'I',
  'Please',
  'Can',
  'Could',
  'Find',
  'Book',
  'Reserve',
  'Buy',
  'Get',
  'Search',
  'Also',
  'Then',
  'And',
  'The',
  'A',
  'An',
  'USER',
  'REQUIREMENT',
  'User',
]);

/**
 * Capitalised spans right after one of `preps` ("in", "from", "to", "at", ...): a run of words
 * that start with an upper-case letter or a digit, joined by connectors such as "of"/"the"
 * ("Museum of Astronomy and Related Sciences"), stopping at a comma, a lower-case word or a
 * month/weekday name. A leading "the" is dropped. Returns spans in reading order.
 */
export function findNamesAfter(text: string, preps: readonly string[]): Found[] {
  const out: Found[] = [];
  const re = new RegExp(`\\b(?:${preps.join('|')})\\s+(?:the\\s+)?`, 'gi');
  for (const m of text.matchAll(re)) {
    const begin = (m.index ?? 0) + m[0].length;
    const rest = text.slice(begin);
    const words = rest.split(/(\s+)/);
    const kept: string[] = [];
    let consumed = 0;
    for (let i = 0; i < words.length; i += 2) {
      const w = words[i] ?? '';
      const sep = words[i + 1] ?? '';
      const core = w.replace(/[,.;:!?)"”]+$/, '');
      const trailingPunct = core.length < w.length;
      const isCap =
        /^[A-Z0-9][\w'’.&-]*$/.test(core) &&
        !MONTHS.includes(core.toLowerCase()) &&
        !WEEKDAYS.includes(core.toLowerCase());
      const isConnector = kept.length > 0 && NAME_CONNECTORS.has(core.toLowerCase()) && !trailingPunct;
      if (
        /^\d+(?::\d+)?(?:am|pm)?$/i.test(core) &&
        kept.length === 0 &&
        /^\s*(?:am|pm|a\.m|p\.m|people|persons?|passengers?|tickets?|adults?|seats?)\b/i.test(
          words.slice(i + 1).join(''),
        )
      )
        break;
      if (isCap && !(kept.length === 0 && NOT_NAME_START.has(core))) {
        kept.push(core);
        consumed = i;
        if (trailingPunct) break;
      } else if (isConnector) {
        kept.push(core);
      } else break;
      void sep;
    }
    // drop trailing connectors
    while (kept.length > 0 && NAME_CONNECTORS.has((kept[kept.length - 1] ?? '').toLowerCase())) kept.pop();
    if (kept.length === 0) continue;
    void consumed;
    const value = kept.join(' ').replace(/'s$/, '');
    if (/^\d+$/.test(value)) continue;
    out.push({ value, start: begin, end: begin + value.length });
  }
  return out.sort((a, b) => a.start - b.start);
}
