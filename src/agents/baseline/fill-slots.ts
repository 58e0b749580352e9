import type { Api, Parameter } from '../../catalog/index.js';
import { stemInflections as stem } from '../../retrieval/index.js';
import {
  type Found,
  findAmounts,
  findCounts,
  findDates,
  findNamesAfter,
  findQuoted,
  findTimes,
} from './slot-patterns.js';

/**
 * Slot filling of the baseline agent (docs/baseline.md): every value comes from the text by a
 * rule keyed on the parameter's type or name. Parameters without a value found stay unset.
 */

const PERSON_NOUNS = [
  'people',
  'persons?',
  'passengers?',
  'adults?',
  'tickets?',
  'seats?',
  'guests?',
  'travell?ers?',
  'individuals?',
  'riders?',
];
const BED_NOUNS = ['beds?', 'bedrooms?'];
const BATH_NOUNS = ['baths?', 'bathrooms?'];

const FROM_PARAMS = /^(from|from_city|origin|origin_airport|origin_city|from_location|departure_city)$/;
const TO_PARAMS = /^(to|to_city|destination|destination_airport|destination_city|to_location)$/;
const CITY_PARAMS = /^(city|location|where_to|area|city_of_event|pickup_city|address_of_location)$/;
const PLACE_NAME_PARAMS =
  /^(restaurant_name|stylist_name|therapist_name|theater_name|venue|property_name|attraction_name|dentist_name|doctor_name|hotel_name)$/;
const TITLE_PARAMS = /^(event_name|movie_name|title|track|song_name|album|movie_title)$/;

/** Words of a boolean parameter name that signal it in text (has_laundry_service → laundry). */
const BOOL_NAME_FILLER = new Set([
  'has',
  'is',
  'in',
  'unit',
  'with',
  'add',
  'additional',
  'options',
  'service',
  'good',
  'for',
  'private',
  'seating',
]);
const BOOL_CUES: Record<string, string[]> = {
  add_insurance: ['insurance', 'insured', 'coverage'],
  trip_protection: ['insurance', 'protection', 'insured'],
  has_seating_outdoors: ['outdoor', 'outdoors', 'outside', 'patio'],
  has_vegetarian_options: ['vegetarian', 'vegan'],
  is_nonstop: ['nonstop', 'non-stop', 'direct'],
  good_for_kids: ['kids', 'children', 'kid-friendly', 'family'],
  free_entry: ['free'],
  private_visibility: ['private', 'privately'],
  additional_luggage: ['luggage', 'baggage', 'bags'],
  is_unisex: ['unisex'],
};
const NEGATION =
  /\b(without|no|not|don't|do\s+not|decline|declining|skip|excluding|exclude|none)\b[^,.;]{0,30}$/i;

function boolCues(name: string): string[] {
  return BOOL_CUES[name] ?? name.split('_').filter((w) => w.length > 2 && !BOOL_NAME_FILLER.has(w));
}

/** True/False from cue words: a cue preceded (within 30 characters) by a negation gives False. */
export function findBoolean(param: string, text: string): string | undefined {
  const lower = text.toLowerCase();
  for (const cue of boolCues(param)) {
    const re = new RegExp(`\\b${stem(cue).replace(/[-]/g, '\\-')}[a-z]*\\b`, 'i');
    const m = re.exec(lower);
    if (!m) continue;
    if (NEGATION.test(lower.slice(0, m.index))) return 'False';
    const after = lower.slice(m.index + m[0].length, m.index + m[0].length + 25);
    return /^[^,.;]*\b(off|disabled|not\s+(?:needed|required|wanted|included)|declined)\b/.test(after)
      ? 'False'
      : 'True';
  }
  return undefined;
}

/** The enum value of `param` mentioned in `text` (whole words, case-insensitive; earliest wins). */
export function findEnum(values: readonly string[], text: string): string | undefined {
  let best: { value: string; at: number; len: number } | undefined;
  for (const value of values) {
    if (value === 'dontcare') continue;
    const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[\s_-]+/g, '[\\s_-]+');
    const m = new RegExp(`(?<![\\w]|\\d[.:,])${escaped}(?![\\w]|[.:,]\\d)`, 'i').exec(text);
    if (!m) continue;
    if (!best || m.index < best.at || (m.index === best.at && value.length > best.len))
      best = { value, at: m.index, len: value.length };
  }
  if (best) return best.value;
  // no value named: words that stand for a value ("concert" → Music), when the list has it
  let syn: { value: string; at: number } | undefined;
  for (const value of values) {
    for (const word of ENUM_SYNONYMS[value] ?? []) {
      const m = new RegExp(`\\b${word}`, 'i').exec(text);
      if (m && (!syn || m.index < syn.at)) syn = { value, at: m.index };
    }
  }
  return syn?.value;
}

/** Words that stand for a categorical value the text does not name. */
const ENUM_SYNONYMS: Record<string, string[]> = {
  Music: ['concert', 'gig'],
  Sports: ['game\\b', 'match\\b'],
  Theater: ['theatre', 'broadway', 'play\\b', 'musical\\b', 'drama'],
};

const RATING =
  /\b(?:rat(?:ing|ed)\s+(?:of\s+)?(?:at\s+least\s+)?|(?=\d(?:\.\d+)?\s*(?:-?\s*stars?|rating)\b))(\d(?:\.\d{1,2})?)\b/i;

/** A rating ("rated 4.3", "a rating of 4.0", "4.6 rating", "4-star") written with two decimals, as the SGD values are. */
export function findRating(text: string): string | undefined {
  const m = RATING.exec(text);
  return m?.[1] ? Number(m[1]).toFixed(2) : undefined;
}

const END_DATE_PARAM = /(?:^|_)(end|return|check_out|departure_back)(?:_|$)|_end$/;
const END_CUE =
  /\b(?:until|till|through|thru|return\w*|back|drop(?:ped|ping)?\s+(?:it\s+)?off|check(?:ing)?[\s-]+out|ending|end)\b[^.;]{0,20}$/i;

/**
 * Dates → date parameters. With two or more date parameters, a date after an end cue ("until",
 * "returning", "drop off", "check out") goes to the end-type parameter (end_date, return_date,
 * check_out_date), the other dates fill the rest in reading order; otherwise the i-th date
 * parameter takes the i-th date.
 */
export function assignDates(
  params: readonly Parameter[],
  dates: readonly Found[],
  text: string,
): Map<string, string> {
  const out = new Map<string, string>();
  if (params.length < 2) {
    if (params[0] && dates[0]) out.set(params[0].name, dates[0].value);
    return out;
  }
  const isEnd = (f: Found) => END_CUE.test(text.slice(Math.max(0, f.start - 30), f.start));
  const endParam = params.find((p) => END_DATE_PARAM.test(p.name));
  const endDate = dates.find(isEnd);
  if (!endParam || !endDate) {
    params.forEach((p, i) => {
      if (dates[i]) out.set(p.name, dates[i].value);
    });
    return out;
  }
  out.set(endParam.name, endDate.value);
  const rest = dates.filter((d) => d !== endDate);
  params
    .filter((p) => p !== endParam)
    .forEach((p, i) => {
      if (rest[i]) out.set(p.name, rest[i].value);
    });
  return out;
}

/** Words that make a span a place inside a city ("Salesforce Transit Center in San Francisco"). */
const FACILITY =
  /\b(?:Airport|Station|Center|Centre|Terminal|Depot|Land|Park|Stadium|Hall|Theat(?:er|re)|Museum|Plaza|Square|Mall|Hotel|Stop)\b/;

const FACILITY_WORDS =
  /\s+(?:International|Intl\.?|Airport|Station|Union|Center|Centre|Terminal|Depot|Transit)$/;

/**
 * Well-known nicknames and airport codes of cities (world knowledge, not data fitting): the SGD
 * values use the plain city name.
 */
const CITY_ALIASES: Record<string, string> = {
  'new york city': 'New York',
  nyc: 'New York',
  'big apple': 'New York',
  jfk: 'New York',
  lax: 'Los Angeles',
  la: 'Los Angeles',
  sfo: 'San Francisco',
  'chi-town': 'Chicago',
  chitown: 'Chicago',
  ord: 'Chicago',
  philly: 'Philadelphia',
  vegas: 'Las Vegas',
  'ciudad de mexico': 'Mexico City',
  cdmx: 'Mexico City',
  atl: 'Atlanta',
  sea: 'Seattle',
  'washington dc': 'Washington',
  'washington d.c.': 'Washington',
  dc: 'Washington',
};

/**
 * A city from a place span: trailing facility words removed ("Long Beach Airport" → "Long Beach"),
 * then the alias table ("LAX International Airport" → "LAX" → "Los Angeles").
 */
export function cityOf(span: string | undefined): string | undefined {
  if (!span) return span;
  let s = span;
  for (let next = s.replace(FACILITY_WORDS, ''); next !== s; next = s.replace(FACILITY_WORDS, '')) s = next;
  return CITY_ALIASES[s.toLowerCase()] ?? s;
}

function first<T>(list: readonly { value: T }[]): T | undefined {
  return list[0]?.value;
}

export interface SlotContext {
  /** The text of the call's clause(s). */
  segment: string;
  /** The whole instruction (fallback for dates and counts). */
  instruction: string;
  currentDate: string;
}

/** Values for the parameters of `api` found in the text, keyed by parameter name. */
export function fillSlots(api: Api, ctx: SlotContext): Record<string, string> {
  const out: Record<string, string> = {};
  const seg = ctx.segment;
  const segDates = findDates(seg, ctx.currentDate);
  const dates = segDates.length > 0 ? segDates : findDates(ctx.instruction, ctx.currentDate);
  const times = findTimes(seg);
  const dateParams = api.parameters.filter((p) => p.type.kind === 'primitive' && p.type.name === 'date');
  const timeParams = api.parameters.filter((p) => p.type.kind === 'primitive' && p.type.name === 'time');
  const quoted = findQuoted(seg);
  const usedNames = new Set<string>();

  const set = (p: Parameter, value: string | undefined) => {
    if (value !== undefined && value !== '') out[p.name] = value;
  };
  const name = (preps: string[], avoid?: Set<string>) =>
    findNamesAfter(seg, preps).find((f) => !avoid?.has(f.value))?.value;
  // an origin/destination city: "<facility> in City" gives City; facility words and aliases resolved.
  // `destination` (a ride's drop-off address or venue) is kept as written.
  const place = (param: string, preps: string[]): string | undefined => {
    const found = findNamesAfter(seg, preps)[0];
    if (!found) return undefined;
    if (param === 'destination') return found.value;
    const inCity = findNamesAfter(seg.slice(found.end), ['in'])[0];
    const facility = FACILITY.test(found.value);
    const within =
      facility && inCity && /^\s+in\s/i.test(seg.slice(found.end)) && inCity.start <= 5
        ? inCity.value
        : found.value;
    return cityOf(within);
  };

  for (const p of api.parameters) {
    const t = p.type;
    if (t.kind === 'primitive' && t.name === 'date') {
      set(p, assignDates(dateParams, dates, segDates.length > 0 ? seg : ctx.instruction).get(p.name));
    } else if (t.kind === 'primitive' && t.name === 'time') {
      set(p, times[timeParams.indexOf(p)]?.value);
    } else if (t.kind === 'primitive' && t.name === 'boolean') {
      set(p, findBoolean(p.name, seg));
    } else if (t.kind === 'enum' && !t.values.every((v) => /^\d+$/.test(v.value))) {
      const values = t.values.map((v) => v.value);
      if (values.every((v) => v === 'True' || v === 'False')) set(p, findBoolean(p.name, seg));
      else set(p, findEnum(values, seg));
    } else if (t.kind === 'enum' || (t.kind === 'primitive' && t.name === 'integer')) {
      // counts; a categorical count (SGD "1".."4") keeps only values of its list
      const nouns = /bed/.test(p.name) ? BED_NOUNS : /bath/.test(p.name) ? BATH_NOUNS : PERSON_NOUNS;
      const bare = nouns === PERSON_NOUNS;
      const v =
        first(findCounts(seg, nouns, bare)) ??
        (bare ? first(findCounts(ctx.instruction, nouns, bare)) : undefined);
      const allowed = t.kind === 'enum' ? new Set(t.values.map((x) => x.value)) : undefined;
      if (v !== undefined && (!allowed || allowed.has(String(v)))) set(p, String(v));
    } else if (p.name === 'rating' || p.name === 'average_rating') {
      set(p, findRating(seg));
    } else if (p.name === 'amount') {
      set(p, first(findAmounts(seg)));
    } else if (p.name === 'receiver') {
      set(p, /request/i.test(api.name) ? name(['from']) : name(['to']));
    } else if (FROM_PARAMS.test(p.name)) {
      set(p, place(p.name, ['from', 'leaving', 'departing']));
    } else if (TO_PARAMS.test(p.name)) {
      set(p, place(p.name, ['to', 'arriving in']));
    } else if (CITY_PARAMS.test(p.name)) {
      const v = cityOf(name(['in', 'near', 'around']) ?? name(['to', 'at', 'from']));
      set(p, v);
      if (v) usedNames.add(v);
    } else if (p.name === 'pickup_location') {
      set(p, name(['from', 'at']));
    } else if (PLACE_NAME_PARAMS.test(p.name)) {
      set(p, name(['at', 'with'], usedNames));
    } else if (TITLE_PARAMS.test(p.name)) {
      set(
        p,
        quoted.find((q) => !usedNames.has(q.value))?.value ??
          (quoted.length === 0 ? name(['for'], usedNames) : undefined),
      );
      if (out[p.name]) usedNames.add(out[p.name]!);
    } else if (p.name === 'artist') {
      set(p, name(['by']));
    } else if (p.name === 'starring' || p.name === 'cast') {
      set(p, name(['starring', 'featuring', 'with']));
    } else if (p.name === 'directed_by') {
      set(p, name(['directed by', 'by']));
    }
  }
  // fill city-like values after names so a venue ("at X") is not taken as the city
  return out;
}
