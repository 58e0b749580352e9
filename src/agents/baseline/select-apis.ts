import type { Api, Catalog } from '../../catalog/index.js';
import { Bm25Index, stemInflections as stem, type TokenizeOptions, tokenize } from '../../retrieval/index.js';

/**
 * API selection of the baseline agent (docs/baseline.md):
 * 1. Split the instruction into clauses at connectives ("and then", "and also", "as well as",
 *    "after that", ", and", ";", sentence ends).
 * 2. Per clause, rank APIs by BM25 over their text (app name and description, API name and
 *    description, parameter names, descriptions and categorical values), with the clause's words
 *    expanded by a small synonym table (cab → ride, table → restaurant, concert → event, ...).
 *    Every API of an App named in the clause ("train" → Trains) gets a bonus. The best API is
 *    kept when its score reaches `minScore` and either at least `minShare` of the best clause
 *    score of the instruction or its App is named in the clause.
 * 3. Action rule: if the clause asks to book/reserve/buy/purchase/schedule/pay and the chosen API
 *    is not an action, the app's best-scoring action API replaces it. An action API is then
 *    preceded by its search API (the app's non-action API whose outputs cover most of the action's
 *    required parameters), when the app has one.
 * 4. APIs are deduplicated, keeping the first occurrence.
 */

/**
 * How the baseline reads text (fixed when it was tuned, so its output does not move): ASCII words,
 * no camelCase split, its own stopword list, and readable stems (`stemInflections`).
 */
const WORDS: TokenizeOptions = {
  letters: 'ascii',
  splitCamelCase: false,
  stopwords: new Set(
    'a an the and or of to in on at for from with by is are be me my i you your we our us it its this that these those as into onto about please can could would like need want some any all also then will just do does get'.split(
      ' ',
    ),
  ),
};

const analyze = (text: string): string[] => tokenize(text, WORDS).map(stem);

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
      /\b(?:and\s+then|and\s+also|as\s+well\s+as|after\s+that|afterwards|additionally|then)\b|,\s*and\b|\band\s+(?=(?:book|reserve|buy|purchase|find|search|look|get|rent|arrange|secure|check|make|play|pay|send|schedule|request|order)\b)|;|\.\s+(?=[A-Z])/i,
    )
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  return parts.length > 0 ? parts : [text];
}

/** True when the clause asks for an action (book, buy, ...) that is not negated ("do not book"). */
function asksForAction(clause: string): boolean {
  const m = ACTION_CUE.exec(clause);
  if (!m) return false;
  const before = clause.slice(Math.max(0, m.index - 25), m.index);
  return !/\b(not|n't|without|no)\b/i.test(before);
}

/** Query tokens of a clause: quoted titles removed, synonyms added. */
export function expandQuery(clause: string): string[] {
  const text = clause.replace(/["“”][^"“”]*["“”]/g, ' ');
  const tokens = analyze(text);
  const out = [...tokens];
  // no synonyms for Titlecase words inside a sentence: they name things ("Broadway Street");
  // sentence-initial words and ALL-CAPS words (SUV) are expanded
  for (const m of text.matchAll(/[A-Za-z]+/g)) {
    const word = m[0];
    const before = text.slice(0, m.index).trimEnd();
    const atStart = before === '' || /[.!?:]$/.test(before);
    if (/^[A-Z][a-z]/.test(word) && !atStart) continue;
    const raw = word.toLowerCase();
    const syn = SYNONYMS[raw] ?? SYNONYMS[stem(raw)];
    if (syn) out.push(...syn.map(stem));
  }
  return out;
}

/** True for APIs that perform the user's action (book, buy, reserve, play, pay...). */
function isActionApi(api: Api): boolean {
  return api.transactional || ACTION_API.test(api.description);
}

/** The app's search API for an action: the non-action API whose outputs cover most required inputs (≥ 2). */
function searchApiFor(action: Api, catalog: Catalog): Api | undefined {
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
    app?.name,
    app?.description,
    api.name.replace(/_/g, ' '),
    api.description,
    api.description,
    ...params,
  ].join(' ');
}

/** One selected API and the clause (index into `clauses`) it was chosen for. */
export interface ApiPick {
  api: Api;
  clause: number;
}

export interface ApiSelection {
  clauses: string[];
  picks: ApiPick[];
}

export interface ApiSelector {
  /** Selected APIs with their clauses, in plan order. */
  pick(instruction: string): ApiSelection;
  select(instruction: string): Api[];
  /** Apps of the selected APIs, in first-use order. */
  apps(instruction: string): string[];
}

/** Bonus added to every API of an App whose name (stemmed) the clause mentions ("train" → Trains). */
const APP_NAME_BONUS = 4;

export function createApiSelector(catalog: Catalog, opts: SelectApisOptions = {}): ApiSelector {
  const minScore = opts.minScore ?? 2;
  const minShare = opts.minShare ?? 0.5;
  const apis = catalog.apis;
  const bm25 = new Bm25Index(
    apis.map((a) => apiText(a, catalog)),
    { analyze },
  );
  const appStem = new Map(catalog.apps.map((a) => [a.id, stem(a.name.toLowerCase())]));

  const pick = (instruction: string): ApiSelection => {
    const clauseTexts = splitClauses(instruction);
    const clauses = clauseTexts.map((clause) => {
      const query = expandQuery(clause);
      const mentioned = new Set(query);
      // each query term counts once, however often the clause and its synonyms repeat it
      const scores = Array.from(
        bm25.scoreTermsSync(mentioned),
        (s, i) => s + (mentioned.has(appStem.get(apis[i]!.app) ?? '') ? APP_NAME_BONUS : 0),
      );
      let best = 0;
      for (let i = 1; i < scores.length; i++) if ((scores[i] ?? 0) > (scores[best] ?? 0)) best = i;
      const named = mentioned.has(appStem.get(apis[best]!.app) ?? '');
      return { clause, scores, best, score: scores[best] ?? 0, named };
    });
    const top = Math.max(0, ...clauses.map((c) => c.score));
    const chosen: ApiPick[] = [];
    clauses.forEach((c, ci) => {
      if (c.score < minScore || (c.score < minShare * top && !c.named)) return;
      let api = apis[c.best]!;
      const action = asksForAction(c.clause);
      if (!action && isActionApi(api)) api = searchApiFor(api, catalog) ?? api;
      if (action && !isActionApi(api)) {
        const actions = apis
          .map((a, i) => ({ a, s: c.scores[i] ?? 0 }))
          .filter(({ a }) => a.app === api.app && isActionApi(a))
          .sort((x, y) => y.s - x.s);
        if (actions[0]) api = actions[0].a;
      }
      if (isActionApi(api)) {
        const search = searchApiFor(api, catalog);
        if (search) chosen.push({ api: search, clause: ci });
      }
      chosen.push({ api, clause: ci });
    });
    if (chosen.length === 0 && top > 0) {
      let bi = 0;
      clauses.forEach((c, i) => {
        if (c.score > (clauses[bi]?.score ?? 0)) bi = i;
      });
      chosen.push({ api: apis[clauses[bi]!.best]!, clause: bi });
    }
    const seen = new Set<string>();
    const picks = chosen.filter((p) => {
      if (seen.has(p.api.id)) return false;
      seen.add(p.api.id);
      return true;
    });
    return { clauses: clauseTexts, picks };
  };
  const select = (instruction: string) => pick(instruction).picks.map((p) => p.api);

  return {
    pick,
    select,
    apps: (instruction) => [...new Set(select(instruction).map((a) => a.app))],
  };
}
