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
 * SGD services whose other versions are another trade (Services_1 hairdressers, _2 dentists,
 * _3 doctors, _4 therapists): their slots are not borrowed, a stylist has no cosmetic services.
 */
const NO_SIBLING_VERSIONS = new Set(['Services_1', 'Services_4']);

/** `Events_3` → `Events`; versions of one SGD service share the prefix. */
const serviceFamily = (name: string) => name.replace(/_\d+$/, '');

/**
 * Every argument an AppBench API accepts, derived from SGD (docs/catalogs.md "AppBench arguments"):
 * 1. the required and optional slots of its own intent (required stays required);
 * 2. the required and optional slots of the intent of the same name in the other versions of the
 *    service (`Events_1`, `Events_2` for `Events_3.FindEvents`), optional, in version order;
 * 3. for a search (SGD non-transactional intent), its own result slots, optional: the simulated
 *    apps filter the rows on them, and gold plans use them so (`event_name` in `findevents`).
 * A slot keeps the type and description of the first service that declares it.
 */
function deriveAppBenchParameters(
  services: readonly SgdService[],
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
  if (!NO_SIBLING_VERSIONS.has(service.service_name)) {
    const family = serviceFamily(service.service_name);
    const siblings = services
      .filter((s) => s !== service && serviceFamily(s.service_name) === family)
      .sort((a, b) => a.service_name.localeCompare(b.service_name, 'en', { numeric: true }));
    for (const sibling of siblings) {
      const same = sibling.intents.find((i) => i.name === intent.name);
      if (!same) continue;
      for (const n of [...same.required_slots, ...Object.keys(same.optional_slots)])
        add(slotParameter(sgdSlot(sibling, n), false));
    }
  }
  if (!intent.is_transactional)
    for (const n of intent.result_slots) add(slotParameter(sgdSlot(service, n), false));
  return params;
}

/** Where each AppBench API comes from in SGD (service and intent), for the simulated apps. */
export function appBenchSgdSource(app: string, api: string): { service: string; intent: string } | undefined {
  const row = APPBENCH_APIS.find(([a, n]) => a === app && n === api);
  return row ? { service: row[2], intent: row[3] } : undefined;
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
    const own = new Set(api.parameters.map((p) => p.name));
    const extra = deriveAppBenchParameters(services, s, intent).filter((p) => !own.has(p.name));
    if (extra.length) api.extraParameters = extra;
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
