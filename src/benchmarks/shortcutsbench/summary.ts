import { LEVELS } from './length.js';
import type { ModeTallies, ReferenceTally, ScoreMode, ShortcutScore, Tally } from './score-record.js';

/**
 * The 8 categories the official analysis tallies (docs/shortcutsbench.md §4.6); others are dropped in
 * official mode.
 */
export const SHORTCUT_CATEGORIES = [
  'Productivity & Utilities',
  'Health & Fitness',
  'Entertainment & Media',
  'Lifestyle & Social',
  'Education & Reference',
  'Business & Finance',
  'Development & API',
  'Home & Smart Devices',
] as const;

/** `100·num/den`; official: `"inf"` for an empty denominator, corrected: null. */
export interface Accuracy extends Tally {
  accuracy: number | 'inf' | null;
}
export interface LevelTable {
  overall: Accuracy;
  /** `L1`…`L4`; official previous-output tables have no `L1`. */
  byLevel: Record<string, Accuracy>;
}
export interface SizeBucket {
  bucket: string;
  api: Accuracy;
  wrong: number;
  hallucinations: number;
  /** Mean position ratio of the wrong answers whose id is listed. */
  positionRatio: number | 'inf' | null;
  /** Corrected mode: unparseable replies (official counts them as hallucinations). */
  unparsed?: number;
}
export interface CategoryRow {
  category: string;
  shortcuts: number;
  api: Accuracy;
  primitive: Accuracy;
  previousOutput: Accuracy;
  systemInput: Accuracy;
}
export interface ShortcutsReport {
  mode: ScoreMode;
  shortcuts: number;
  api: LevelTable;
  primitive: LevelTable;
  previousOutput: LevelTable & {
    /** Error counts over the denominator (no prediction, format error, value error). */
    errorShares: {
      noPrediction: number | 'inf' | null;
      formatError: number | 'inf' | null;
      valueError: number | 'inf' | null;
    };
    errors: { noPrediction: number; formatError: number; valueError: number };
  };
  systemInput: LevelTable & { byType: Record<string, Accuracy> };
  byCategory: CategoryRow[];
  byApiListSize: SizeBucket[];
}

const SIZE_BUCKETS: ReadonlyArray<{ bucket: string; max: number }> = [
  { bucket: '<=5', max: 5 },
  { bucket: '6-10', max: 10 },
  { bucket: '11-15', max: 15 },
  { bucket: '16-20', max: 20 },
  { bucket: '>20', max: Number.POSITIVE_INFINITY },
];

function ratio(num: number, den: number, mode: ScoreMode, scale = 100): number | 'inf' | null {
  if (den === 0) return mode === 'official' ? 'inf' : null;
  return (scale * num) / den;
}
function accuracy(t: Tally, mode: ScoreMode): Accuracy {
  return { num: t.num, den: t.den, accuracy: ratio(t.num, t.den, mode) };
}
function add(into: Tally, t: Tally): void {
  into.num += t.num;
  into.den += t.den;
}

type Metric = 'api' | 'primitive' | 'previousOutput' | 'systemInput';

function levelTable(
  scores: readonly ShortcutScore[],
  mode: ScoreMode,
  metric: Metric,
  levels: readonly number[] = LEVELS,
): LevelTable {
  const overall = { num: 0, den: 0 };
  const byLevel: Record<string, Accuracy> = {};
  for (const l of levels) {
    const t = { num: 0, den: 0 };
    for (const s of scores) if (s.level === l) add(t, s[mode][metric]);
    byLevel[`L${l}`] = accuracy(t, mode);
  }
  for (const s of scores) add(overall, s[mode][metric]);
  return { overall: accuracy(overall, mode), byLevel };
}

/**
 * The report of one mode over the scores of all result records (micro averages, docs/shortcutsbench.md §9.5).
 */
export function summarizeShortcuts(scores: readonly ShortcutScore[], mode: ScoreMode): ShortcutsReport {
  const tallies = (s: ShortcutScore): ModeTallies => s[mode];
  const ref: ReferenceTally = { num: 0, den: 0, noPrediction: 0, formatError: 0, valueError: 0 };
  for (const s of scores) {
    const r = tallies(s).previousOutput;
    add(ref, r);
    ref.noPrediction += r.noPrediction;
    ref.formatError += r.formatError;
    ref.valueError += r.valueError;
  }
  const byType: Record<string, Tally> = {};
  for (const s of scores)
    for (const [type, t] of Object.entries(tallies(s).systemInputByType)) {
      byType[type] ??= { num: 0, den: 0 };
      add(byType[type], t);
    }

  const categories =
    mode === 'official'
      ? [...SHORTCUT_CATEGORIES]
      : [...new Set(scores.map((s) => s.category).filter((c): c is string => c !== null))].sort();
  const byCategory = categories.map((category): CategoryRow => {
    const mine = scores.filter((s) => s.category === category);
    const sum = (m: Metric) => {
      const t = { num: 0, den: 0 };
      for (const s of mine) add(t, tallies(s)[m]);
      return accuracy(t, mode);
    };
    return {
      category,
      shortcuts: mine.length,
      api: sum('api'),
      primitive: sum('primitive'),
      previousOutput: sum('previousOutput'),
      systemInput: sum('systemInput'),
    };
  });

  let lower = 0;
  const byApiListSize = SIZE_BUCKETS.map(({ bucket, max }): SizeBucket => {
    const mine = scores.filter((s) => s.apiListSize > lower && s.apiListSize <= max);
    lower = max;
    const api = { num: 0, den: 0 };
    const wrong = mine.flatMap((s) => tallies(s).wrong);
    for (const s of mine) add(api, tallies(s).api);
    const listed = wrong.filter((w) => w.positionRatio !== null);
    const out: SizeBucket = {
      bucket,
      api: accuracy(api, mode),
      wrong: wrong.length,
      hallucinations: wrong.filter((w) => w.hallucinated).length,
      positionRatio: ratio(
        listed.reduce((a, w) => a + w.positionRatio!, 0),
        listed.length,
        mode,
        1,
      ),
    };
    if (mode === 'corrected') out.unparsed = wrong.filter((w) => w.unparsed).length;
    return out;
  });

  return {
    mode,
    shortcuts: scores.length,
    api: levelTable(scores, mode, 'api'),
    primitive: levelTable(scores, mode, 'primitive'),
    previousOutput: {
      ...levelTable(scores, mode, 'previousOutput', mode === 'official' ? [2, 3, 4] : LEVELS),
      errors: { noPrediction: ref.noPrediction, formatError: ref.formatError, valueError: ref.valueError },
      errorShares: {
        noPrediction: ratio(ref.noPrediction, ref.den, mode, 1),
        formatError: ratio(ref.formatError, ref.den, mode, 1),
        valueError: ratio(ref.valueError, ref.den, mode, 1),
      },
    },
    systemInput: {
      ...levelTable(scores, mode, 'systemInput'),
      byType: Object.fromEntries(Object.entries(byType).map(([k, t]) => [k, accuracy(t, mode)])),
    },
    byCategory,
    byApiListSize,
  };
}
