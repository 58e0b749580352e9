import type { Api, Catalog } from '../../catalog/index.js';
import { Bm25, stem, tokenize } from './bm25.js';

/**
 * API selection of the baseline agent (docs/baseline.md):
 * 1. Split the instruction into clauses at connectives ("and then", "and also", "as well as",
 *    "after that", ", and", ";", sentence ends).
 * 2. Per clause, rank APIs by BM25 over their text (app name and description, API name and
 *    description, parameter names, descriptions and categorical values), with the clause's words
 *    expanded by a small synonym table (cab → ride, table → restaurant, concert → event, ...).
 *    The best API is kept when its score reaches `minScore` and at least `minShare` of the best
 *    clause score of the instruction.
 * 3. Action rule: if the clause asks to book/reserve/buy/purchase/schedule/pay and the chosen API
 *    is not an action, the app's best-scoring action API replaces it. An action API is then
 *    preceded by its search API (the app's non-action API whose outputs cover most of the action's
 *    required parameters), when the app has one.
 * 4. APIs are deduplicated, keeping the first occurrence.
 */

const SYNONYMS: Record<string, string[]> = {
  cab: ['ride'],
  taxi: ['ride'],
  uber: ['ride'],
  lyft: ['ride'],
  drive: ['ride'],
  table: ['restaurant'],
  dine: ['restaurant'],
  dinner: ['restaurant'],
  lunch: ['restaurant'],
  eat: ['restaurant'],
  meal: ['restaurant'],
  concert: ['event', 'music'],
  show: ['event'],
  game: ['event', 'sport'],
  match: ['event', 'sport'],
  broadway: ['event', 'theater'],
  theatre: ['event', 'theater'],
  musical: ['event', 'theater'],
  play: ['event', 'theater'],
  hotel: ['house', 'stay'],
  accommodation: ['house', 'stay'],
  lodging: ['house', 'stay'],
  stay: ['house'],
  room: ['house'],
  airline: ['flight'],
  fly: ['flight'],
  plane: ['flight'],
  song: ['song', 'music', 'track'],
  track: ['song', 'music'],
  album: ['music'],
  listen: ['music', 'song'],
  forecast: ['weather'],
  rain: ['weather'],
  temperature: ['weather'],
  sightseeing: ['attraction'],
  museum: ['attraction'],
  landmark: ['attraction'],
  tourist: ['attraction'],
  pay: ['payment'],
  send: ['payment'],
  money: ['payment'],
  transfer: ['payment'],
  haircut: ['stylist', 'salon'],
  hairdresser: ['stylist', 'salon'],
  salon: ['stylist'],
  psychiatrist: ['therapist'],
  psychologist: ['therapist'],
  apartment: ['home', 'property'],
  property: ['home'],
  film: ['movie'],
  cinema: ['movie', 'theater'],
  coach: ['bus'],
  rental: ['rent', 'car'],
  vehicle: ['car'],
  suv: ['car'],
  sedan: ['car'],
  hatchback: ['car'],
};

const ACTION_CUE =
  /\b(book|booking|reserve|reserving|reservation|buy|buying|purchase|purchasing|schedule|make\s+a\s+payment|pay|send\s+\$?\d|play)\b/i;
const ACTION_API = /^(buy|book|reserve|purchase|play|make|schedule|request|get\s+(?:a\s+)?ride)/i;

export interface SelectApisOptions {
  minScore?: number;
  minShare?: number;
}

/** Splits an instruction into clauses at connectives; never returns an empty list. */
export function splitClauses(text: string): string[] {
  const parts = text
    .split(
      /\b(?:and\s+then|and\s+also|as\s+well\s+as|after\s+that|afterwards|additionally|then)\b|,\s*and\b|;|\.\s+(?=[A-Z])/i,
    )
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  return parts.length > 0 ? parts : [text];
}

export function expandQuery(text: string): string[] {
  const tokens = tokenize(text);
  const out = [...tokens];
  for (const raw of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const syn = SYNONYMS[raw] ?? SYNONYMS[stem(raw)];
    if (syn) out.push(...syn.map(stem));
  }
  return out;
}

/** True for APIs that perform the user's action (book, buy, reserve, play, pay...). */
export function isActionApi(api: Api): boolean {
  return api.transactional || ACTION_API.test(api.description);
}

/** The app's search API for an action: the non-action API whose outputs cover most required inputs (≥ 2). */
export function searchApiFor(action: Api, catalog: Catalog): Api | undefined {
  const required = action.parameters.filter((p) => p.required).map((p) => p.name);
  let best: Api | undefined;
  let bestCover = 1;
  for (const api of catalog.apis) {
    if (api.app !== action.app || api.id === action.id || isActionApi(api)) continue;
    const outs = new Set(api.outputs.map((o) => o.name));
    const cover = required.filter((r) => outs.has(r)).length;
    if (cover > bestCover) {
      best = api;
      bestCover = cover;
    }
  }
  return best;
}

function apiText(api: Api, catalog: Catalog): string {
  const app = catalog.apps.find((a) => a.id === api.app);
  const params = api.parameters.map((p) => {
    const values = p.type.kind === 'enum' ? p.type.values.map((v) => v.value).join(' ') : '';
    return `${p.name.replace(/_/g, ' ')} ${p.description ?? ''} ${values}`;
  });
  return [
    app?.name,
    app?.name,
    app?.description,
    api.name.replace(/_/g, ' '),
    api.description,
    api.description,
    ...params,
  ].join(' ');
}

export interface ApiSelector {
  select(instruction: string): Api[];
  /** Apps of the selected APIs, in first-use order. */
  apps(instruction: string): string[];
}

export function createApiSelector(catalog: Catalog, opts: SelectApisOptions = {}): ApiSelector {
  const minScore = opts.minScore ?? 2;
  const minShare = opts.minShare ?? 0.5;
  const apis = catalog.apis;
  const bm25 = new Bm25(apis.map((a) => apiText(a, catalog)));

  const select = (instruction: string): Api[] => {
    const clauses = splitClauses(instruction).map((clause) => {
      const scores = bm25.scores(expandQuery(clause));
      let best = 0;
      for (let i = 1; i < scores.length; i++) if ((scores[i] ?? 0) > (scores[best] ?? 0)) best = i;
      return { clause, scores, best, score: scores[best] ?? 0 };
    });
    const top = Math.max(0, ...clauses.map((c) => c.score));
    const chosen: Api[] = [];
    for (const c of clauses) {
      if (c.score < minScore || c.score < minShare * top) continue;
      let api = apis[c.best]!;
      if (ACTION_CUE.test(c.clause) && !isActionApi(api)) {
        const actions = apis
          .map((a, i) => ({ a, s: c.scores[i] ?? 0 }))
          .filter(({ a }) => a.app === api.app && isActionApi(a))
          .sort((x, y) => y.s - x.s);
        if (actions[0]) api = actions[0].a;
      }
      if (isActionApi(api)) {
        const search = searchApiFor(api, catalog);
        if (search) chosen.push(search);
      }
      chosen.push(api);
    }
    if (chosen.length === 0 && top > 0) {
      const best = clauses.reduce((a, b) => (b.score > a.score ? b : a));
      chosen.push(apis[best.best]!);
    }
    const seen = new Set<string>();
    return chosen.filter((a) => (seen.has(a.id) ? false : (seen.add(a.id), true)));
  };

  return {
    select,
    apps: (instruction) => [...new Set(select(instruction).map((a) => a.app))],
  };
}
