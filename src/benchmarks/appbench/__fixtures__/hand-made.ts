/**
 * Hand-made AppBench-format records for unit tests. Written for this project (AppBench data
 * has no licence and is never vendored): the format follows docs/appbench.md, "Record format"; the values
 * (cities, dates, names) are invented.
 */
import type { AppBenchRecord } from '../record.js';
import type { AppBenchSample } from '../sample.js';

const RENTS_SEARCH_OUT = 'car_type, car_name, pickup_location, start_date, pickup_time, city, end_date, price_per_day';
const RENTS_RESERVE_OUT = 'car_type, car_name, pickup_location, start_date, pickup_time, end_date, price_per_day, add_insurance';
const WEATHER_OUT = 'precipitation, humidity, wind, temperature, city, date';
const RESTAURANTS_OUT =
  'restaurant_name, has_seating_outdoors, has_vegetarian_options, phone_number, rating, address, price_range, location, category';

function record(input: string, apps: string[], calls: string[], ua: Record<string, string>): AppBenchRecord {
  return {
    input,
    output: {
      used_app: apps,
      used_api: [],
      result_arguments: calls.map((c) => c.split(' = ')[0]!.split(', ')),
      api_results: calls,
      user_aware_arguments: ua,
    },
  };
}

/** SM, shaped like docs/appbench.md, "Worked example" (search then reserve a car). */
export const carRental = record(
  'Book a Compact car with insurance, picked up in Oslo on March 4th at 10:00 and returned on March 6th.',
  ['Rents', 'Rents'],
  [
    `${RENTS_SEARCH_OUT} = getcarsavailable(#car_type='Compact', #city='Oslo', #end_date='2019-03-06', #pickup_time='10:00', #start_date='2019-03-04')`,
    `${RENTS_RESERVE_OUT} = reservecar(#add_insurance='True', #car_type=car_type, #end_date=end_date, #pickup_location=pickup_location, #pickup_time=pickup_time, #start_date=start_date)`,
  ],
  {
    car_type: 'Compact',
    city: 'Oslo',
    end_date: '2019-03-06',
    pickup_time: '10:00',
    start_date: '2019-03-04',
    add_insurance: 'True',
  },
);

/** MS, two independent calls. */
export const weatherAndFood = record(
  'What is the weather in Lyon on March 5th, and find me a Thai restaurant there.',
  ['Weather', 'Restaurants'],
  [
    `${WEATHER_OUT} = getweather(#city='Lyon', #date='2019-03-05')`,
    `${RESTAURANTS_OUT} = findrestaurants(#category='Thai', #location='Lyon')`,
  ],
  { city: 'Lyon', date: '2019-03-05', category: 'Thai', location: 'Lyon' },
);

/** SM, the same API called twice. */
export const twoWeathers = record(
  'Weather in Lyon and in Nice on March 5th?',
  ['Weather', 'Weather'],
  [
    `${WEATHER_OUT} = getweather(#city='Lyon', #date='2019-03-05')`,
    `${WEATHER_OUT} = getweather(#city='Nice', #date='2019-03-05')`,
  ],
  { city: 'Nice', date: '2019-03-05' },
);

/** SS with an underscore API name (never gold upstream; here to exercise name mangling). */
export const stylist = record(
  'Find a hair stylist in Lyon.',
  ['Services'],
  ['stylist_name, phone_number, average_rating, is_unisex, street_address, city = find_stylist_provider(#city=\'Lyon\')'],
  { city: 'Lyon' },
);

/** MM where a dependent value is later overridden in user_aware_arguments (exercises the `past` fallback). */
export const carEventWeather = record(
  'Rent a car in Oslo from March 4th 10:00 to March 6th, find music events there, and the weather in Bergen.',
  ['Rents', 'Events', 'Weather'],
  [
    `${RENTS_SEARCH_OUT} = getcarsavailable(#city='Oslo', #end_date='2019-03-06', #pickup_time='10:00', #start_date='2019-03-04')`,
    "event_name, date, time, price_per_ticket, city, venue, venue_address = findevents(#city=city, #event_type='Music')",
    `${WEATHER_OUT} = getweather(#city='Bergen')`,
  ],
  { city: 'Bergen', end_date: '2019-03-06', pickup_time: '10:00', start_date: '2019-03-04', event_type: 'Music' },
);

/** Renders gold `api_results` as a model reply: `App: [<call>]` per line. */
export function goldReply(r: AppBenchRecord): string {
  return r.output.api_results.map((c, i) => `${r.output.used_app[i]}: [${c}]`).join('\n');
}

export function sampleOf(r: AppBenchRecord, id: string): AppBenchSample {
  const [category, index] = id.split('-') as [AppBenchSample['category'], string];
  return { id, category, index: Number(index), record: r };
}

const BUSES_2_OUT =
  'origin, destination, origin_station_name, destination_station_name, departure_date, price, departure_time, group_size, fare_type';
const BUSES_3_BUY_OUT =
  'from_city, to_city, from_station, to_station, departure_date, departure_time, price, additional_luggage, num_passengers, category';
const EVENTS_SEARCH_OUT = 'event_type, event_name, date, time, price_per_ticket, city, venue, venue_address';
const EVENTS_BUY_OUT = 'event_name, date, time, number_of_tickets, price_per_ticket, city, venue, venue_address';

/**
 * MM-shaped: `findbus` in Buses_2's argument names (`origin`, `destination`, `group_size`,
 * `fare_type`) where the catalog's own version (Buses_3) requires `from_city`/`to_city`; the
 * booking reads the search's outputs in Buses_2's names. Rejected before the catalog accepted
 * every SGD version's required set (the full test set has 78 such rejections).
 */
export const busInAnotherVersion = record(
  'Find an economy bus for 2 from Philadelphia to New York on March 1st and book it.',
  ['Buses', 'Buses'],
  [
    `${BUSES_2_OUT} = findbus(#departure_date='2019-03-01', #destination='New York', #fare_type='Economy', #group_size='2', #origin='Philadelphia')`,
    `${BUSES_3_BUY_OUT} = buybusticket(#additional_luggage='False', #departure_date=departure_date, #departure_time=departure_time, #from_city=origin, #num_passengers=group_size, #to_city=destination)`,
  ],
  {
    departure_date: '2019-03-01',
    destination: 'New York',
    fare_type: 'Economy',
    group_size: '2',
    origin: 'Philadelphia',
    additional_luggage: 'False',
  },
);

/**
 * MM-shaped: `findevents` with `event_type` Sports, a value of Events_1/Events_2 but not of the
 * catalog's own version (Events_3: Music, Theater), then a booking from its result.
 */
export const sportsEvent = record(
  'Find a sports game in New York on March 8th and buy 2 tickets for it.',
  ['Events', 'Events'],
  [
    `${EVENTS_SEARCH_OUT} = findevents(#city='New York', #date='2019-03-08', #event_type='Sports')`,
    `${EVENTS_BUY_OUT} = buyeventtickets(#city=city, #date=date, #event_name=event_name, #number_of_tickets='2')`,
  ],
  { city: 'New York', date: '2019-03-08', event_type: 'Sports', number_of_tickets: '2' },
);
