import type { Api, App, Catalog, CatalogSource, Parameter } from '../../catalog/index.js';
import { ApiaryError } from '../../shared/index.js';
import {
  loadSgdServices,
  type SgdIntent,
  type SgdService,
  sgdIntentToApi,
  sgdSlot,
  slotParameter,
} from './sgd-catalog.js';
import { type SgdSiblingIntent, sgdSiblingIntents } from './sgd-versions.js';

/** `Mobile.app_list` of the official code: the order used in every flat listing. */
const APPBENCH_APPS = [
  'Hotels',
  'Rents',
  'Buses',
  'Events',
  'Flights',
  'Homes',
  'Media',
  'Movies',
  'Music',
  'Payment',
  'Restaurants',
  'Services',
  'Trains',
  'Travel',
  'Weather',
] as const;
type AppBenchApp = (typeof APPBENCH_APPS)[number];

/** [app, api name, SGD service, SGD intent], in the official per-app order (docs/appbench.md, "Apps and APIs"). */
const APPBENCH_APIS: ReadonlyArray<readonly [AppBenchApp, string, string, string]> = [
  ['Hotels', 'searchhouse', 'Hotels_2', 'SearchHouse'],
  ['Hotels', 'bookhouse', 'Hotels_2', 'BookHouse'],
  ['Rents', 'getcarsavailable', 'RentalCars_3', 'GetCarsAvailable'],
  ['Rents', 'reservecar', 'RentalCars_3', 'ReserveCar'],
  ['Rents', 'getride', 'RideSharing_2', 'GetRide'],
  ['Buses', 'findbus', 'Buses_3', 'FindBus'],
  ['Buses', 'buybusticket', 'Buses_3', 'BuyBusTicket'],
  ['Events', 'findevents', 'Events_3', 'FindEvents'],
  ['Events', 'buyeventtickets', 'Events_3', 'BuyEventTickets'],
  ['Flights', 'searchonewayflight', 'Flights_4', 'SearchOnewayFlight'],
  ['Flights', 'searchroundtripflights', 'Flights_4', 'SearchRoundtripFlights'],
  ['Homes', 'findhomebyarea', 'Homes_2', 'FindHomeByArea'],
  ['Homes', 'schedulevisit', 'Homes_2', 'ScheduleVisit'],
  ['Media', 'findmovies', 'Media_3', 'FindMovies'],
  ['Media', 'playmovie', 'Media_3', 'PlayMovie'],
  ['Movies', 'buymovietickets', 'Movies_1', 'BuyMovieTickets'],
  ['Movies', 'findmovies', 'Movies_1', 'FindMovies'],
  ['Movies', 'gettimesformovie', 'Movies_1', 'GetTimesForMovie'],
  ['Movies', 'reviewmovies', 'Movies_3', 'FindMovies'],
  ['Music', 'playmedia', 'Music_3', 'PlayMedia'],
  ['Music', 'lookupmusic', 'Music_3', 'LookupMusic'],
  ['Payment', 'requestpayment', 'Payment_1', 'RequestPayment'],
  ['Payment', 'makepayment', 'Payment_1', 'MakePayment'],
  ['Restaurants', 'reserverestaurant', 'Restaurants_2', 'ReserveRestaurant'],
  ['Restaurants', 'findrestaurants', 'Restaurants_2', 'FindRestaurants'],
  ['Services', 'book_stylist_appointment', 'Services_1', 'BookAppointment'],
  ['Services', 'find_stylist_provider', 'Services_1', 'FindProvider'],
  ['Services', 'book_therapist_appointment', 'Services_4', 'BookAppointment'],
  ['Services', 'find_therapist_provider', 'Services_4', 'FindProvider'],
  ['Trains', 'gettraintickets', 'Trains_1', 'GetTrainTickets'],
  ['Trains', 'findtrains', 'Trains_1', 'FindTrains'],
  ['Travel', 'findattractions', 'Travel_1', 'FindAttractions'],
  ['Weather', 'getweather', 'Weather_1', 'GetWeather'],
];

/** AppBench marks these SGD-transactional intents as non-transactional. */
const NOT_TRANSACTIONAL_IN_APPBENCH = new Set(['buyeventtickets', 'playmovie']);

/**
 * Every argument an AppBench API accepts, derived from SGD (docs/catalogs.md "AppBench arguments"):
 * 1. the required and optional slots of its own intent (required stays required);
 * 2. the required and optional slots of the intent of the same name in the other versions of the
 *    service (`Events_1`, `Events_2` for `Events_3.FindEvents`), optional, in version order;
 * 3. for a search (SGD non-transactional intent), its own result slots, optional: the simulated
 *    apps filter the rows on them, and gold plans use them so (`event_name` in `findevents`).
 * A slot keeps the description of the first service that declares it and accepts the values of
 * every version: a borrowed slot that a later version takes as free text becomes free text, and an
 * enum gains the other versions' values (see {@link acceptedValuesOf}).
 */
function deriveAppBenchParameters(
  siblings: readonly SgdSiblingIntent[],
  service: SgdService,
  intent: SgdIntent,
): Parameter[] {
  const params: Parameter[] = [];
  const seen = new Set<string>();
  const add = (p: Parameter) => {
    if (seen.has(p.name)) return;
    seen.add(p.name);
    params.push(p);
  };
  for (const n of intent.required_slots) add(slotParameter(sgdSlot(service, n), true));
  for (const [n, d] of Object.entries(intent.optional_slots))
    add(slotParameter(sgdSlot(service, n), false, d));
  const borrowed = new Set<string>();
  for (const sibling of siblings)
    for (const n of [...sibling.intent.required_slots, ...Object.keys(sibling.intent.optional_slots)]) {
      const p = slotParameter(sgdSlot(sibling.service, n), false);
      const first = params.find((q) => q.name === n);
      // a version that takes any text for a borrowed slot (Events_2's `category`) widens it
      if (first && borrowed.has(n) && first.type.kind === 'enum' && p.type.kind !== 'enum')
        first.type = p.type;
      if (first) continue;
      borrowed.add(n);
      add(p);
    }
  if (!intent.is_transactional)
    for (const n of intent.result_slots) add(slotParameter(sgdSlot(service, n), false));
  return params;
}

/**
 * The values each enum argument also accepts from the other versions (Events_2's `event_type`
 * Sports, Events_1's `category` Sports for Events_3's `event_type`): a categorical slot of a
 * sibling adds its values to the parameter of the same name or of the slot it maps onto.
 */
function acceptedValuesOf(params: readonly Parameter[], siblings: readonly SgdSiblingIntent[]) {
  const extra: Record<string, string[]> = {};
  for (const p of params) {
    if (p.type.kind !== 'enum') continue;
    const own = new Set(p.type.values.map((v) => v.value));
    for (const { service, toOwn } of siblings)
      for (const slot of service.slots) {
        if (!slot.is_categorical || (toOwn.get(slot.name) ?? slot.name) !== p.name) continue;
        for (const v of slot.possible_values)
          if (!own.has(v)) {
            own.add(v);
            extra[p.name] = [...(extra[p.name] ?? []), v];
          }
      }
  }
  return extra;
}

/**
 * The other versions' required sets (`origin`, `destination`, `departure_date` for Buses_3's
 * `findbus`): any one satisfies a call. A version that requires nothing is left out: it would
 * waive the own version's requirements for every call.
 */
function alternativeRequiredOf(siblings: readonly SgdSiblingIntent[], intent: SgdIntent): string[][] {
  const own = [...intent.required_slots].sort().join(',');
  const sets = new Map<string, string[]>();
  for (const { intent: other } of siblings) {
    const key = [...other.required_slots].sort().join(',');
    if (other.required_slots.length > 0 && key !== own) sets.set(key, [...other.required_slots]);
  }
  return [...sets.values()];
}

/** Where each AppBench API comes from in SGD (service and intent), for the simulated apps. */
export function appBenchSgdSource(app: string, api: string): { service: string; intent: string } | undefined {
  const row = APPBENCH_APIS.find(([a, n]) => a === app && n === api);
  return row ? { service: row[2], intent: row[3] } : undefined;
}

/** The AppBench App and API an SGD intent is (`RentalCars_3`, `GetCarsAvailable` → Rents.getcarsavailable). */
export function appBenchApiOfSgd(service: string, intent: string): { app: string; api: string } | undefined {
  const row = APPBENCH_APIS.find(([, , s, i]) => s === service && i === intent);
  return row ? { app: row[0], api: row[1] } : undefined;
}

/** Whether an SGD service is behind an AppBench App (`Hotels_2` is, `Hotels_4` is another domain's). */
export function isAppBenchSgdService(service: string): boolean {
  return APPBENCH_APIS.some(([, , s]) => s === service);
}

/**
 * The AppBench (MetaBench) environment: 15 apps, 33 lower-case APIs built from SGD services.
 * App descriptions are the SGD service descriptions (joined when an app merges two services).
 */
function appBenchCatalog(services: readonly SgdService[]): Catalog {
  const byName = new Map(services.map((s) => [s.service_name, s]));
  const service = (name: string): SgdService => {
    const s = byName.get(name);
    if (!s)
      throw new ApiaryError('CATALOG_INVALID', `appbench: SGD service "${name}" is missing from the schemas`);
    return s;
  };
  const apis: Api[] = APPBENCH_APIS.map(([app, name, serviceName, intentName]) => {
    const s = service(serviceName);
    const intent = s.intents.find((i) => i.name === intentName);
    if (!intent)
      throw new ApiaryError(
        'CATALOG_INVALID',
        `appbench: SGD intent ${serviceName}.${intentName} is missing`,
      );
    const api = sgdIntentToApi(s, intent, app, name);
    // The advertised interface stays SGD's own intent; the rest is accepted, not shown.
    const siblings = sgdSiblingIntents(services, s, intentName);
    const own = new Set(api.parameters.map((p) => p.name));
    const accepted = deriveAppBenchParameters(siblings, s, intent);
    const extra = accepted.filter((p) => !own.has(p.name));
    if (extra.length) api.extraParameters = extra;
    const alternatives = alternativeRequiredOf(siblings, intent);
    if (alternatives.length) api.alternativeRequired = alternatives;
    const values = acceptedValuesOf(accepted, siblings);
    if (Object.keys(values).length) api.extraValues = values;
    if (NOT_TRANSACTIONAL_IN_APPBENCH.has(name)) api.transactional = false;
    return api;
  });
  const apps: App[] = APPBENCH_APPS.map((id) => {
    const sources = [...new Set(APPBENCH_APIS.filter(([a]) => a === id).map(([, , s]) => s))];
    return {
      id,
      name: id,
      description: [...new Set(sources.map((s) => service(s).description))].join('; '),
      owner: `app:${id}`,
      category: sources.join(','),
    };
  });
  return { name: 'appbench', apps, apis };
}

/** `--catalog appbench`: the 15 apps and 33 APIs, built from the SGD schemas. */
export const appBenchCatalogSource: CatalogSource = {
  name: 'appbench',
  description: 'AppBench (MetaBench): 15 apps, 33 APIs built from the SGD schemas',
  load: (opts) => appBenchCatalog(loadSgdServices(opts)),
};
