import { beforeAll, describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';
import { type Catalog, loadCatalog } from '../../catalog/index.js';
import { stemInflections as stem } from '../../retrieval/index.js';
import { baselineAgent } from './baseline-agent.js';
import { assignDates, cityOf, fillSlots, findBoolean, findEnum, findRating } from './fill-slots.js';
import { expandQuery, splitClauses } from './select-apis.js';
import {
  findAmounts,
  findCounts,
  findDates,
  findNamesAfter,
  findQuoted,
  findTimes,
} from './slot-patterns.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const TODAY = '2019-03-01'; // a Friday
const PEOPLE = ['people', 'persons?', 'passengers?', 'tickets?', 'seats?'];
const values = <T>(list: Array<{ value: T }>) => list.map((f) => f.value);

describe('stem', () => {
  it('folds plurals and verb endings', () => {
    expect(['buses', 'bus', 'houses', 'classes', 'cities', 'tickets', 'booking', 'booked'].map(stem)).toEqual(
      ['bus', 'bus', 'house', 'class', 'city', 'ticket', 'book', 'book'],
    );
  });
});

describe('findDates', () => {
  it.each([
    ['pick up on March 7th and return on the 13th', ['2019-03-07', '2019-03-13']],
    ['on the 7th of March', ['2019-03-07']],
    ['leaving Mar 9', ['2019-03-09']],
    ['on 2019-03-14', ['2019-03-14']],
    ['on the 9th of the month', ['2019-03-09']],
    ['the 13th of this month', ['2019-03-13']],
    ['tomorrow', ['2019-03-02']],
    ['today', ['2019-03-01']],
    ['the day after tomorrow', ['2019-03-03']],
    ['next Friday', ['2019-03-08']],
    ['this Friday', ['2019-03-01']],
    ['next Monday', ['2019-03-04']],
    ['this Sunday', ['2019-03-03']],
    ['on February 20th', ['2020-02-20']],
    ['at 4058 18th Street', []],
    ['on Monday, March 4th', ['2019-03-04']],
    ['from Sunday this week', ['2019-03-03']],
    ['on Friday next week', ['2019-03-08']],
  ])('%s', (text, expected) => {
    expect(values(findDates(text, TODAY))).toEqual(expected);
  });
});

describe('assignDates', () => {
  const catalog = loadCatalog('appbench');
  const params = (id: string) =>
    catalog.apis
      .find((a) => a.id === id)!
      .parameters.filter((p) => p.type.kind === 'primitive' && p.type.name === 'date');
  const assign = (id: string, text: string) =>
    Object.fromEntries(assignDates(params(id), findDates(text, TODAY), text));
  it('end cues send a date to the end-type parameter', () => {
    expect(assign('Rents.getcarsavailable', 'a car until the 13th, pick it up on the 11th of March')).toEqual(
      {
        start_date: '2019-03-11',
        end_date: '2019-03-13',
      },
    );
    expect(
      assign('Flights.searchroundtripflights', 'with a return date of March 5th, departing today'),
    ).toEqual({
      departure_date: '2019-03-01',
      return_date: '2019-03-05',
    });
  });
  it('otherwise dates fill the parameters in order', () => {
    expect(assign('Rents.getcarsavailable', 'from March 6th to March 10th')).toEqual({
      start_date: '2019-03-06',
      end_date: '2019-03-10',
    });
    expect(assign('Rents.getcarsavailable', 'on March 6th')).toEqual({ start_date: '2019-03-06' });
  });
});

describe('findTimes', () => {
  it('reads 12-hour, 24-hour and named times', () => {
    expect(values(findTimes('at 1:30 pm, 8 am, noon, 13:30, midnight, 12 am, 12:15 pm, 7:10a.m.'))).toEqual([
      '13:30',
      '08:00',
      '12:00',
      '13:30',
      '00:00',
      '00:00',
      '12:15',
      '07:10',
    ]);
    expect(values(findTimes('around 6 in the evening'))).toEqual(['18:00']);
    expect(values(findTimes('to 4058 18th Street for 3 people'))).toEqual([]);
  });
});

describe('findCounts', () => {
  it.each([
    ['a table for 2 at Namu Gaji', [2]],
    ['four tickets please', [4]],
    ['a ticket', [1]],
    ['Book two train tickets', [2]],
    ['a round trip ticket for four people', [4]],
    ['for 3 days', []],
    ['for 2 nights at 5 pm', []],
    ['a party of six', [6]],
  ])('%s', (text, expected) => {
    expect(values(findCounts(text, PEOPLE, true))).toEqual(expected);
  });
  it('beds and baths', () => {
    expect(values(findCounts('a 3 bedroom place with 2 baths', ['beds?', 'bedrooms?']))).toEqual([3]);
    expect(values(findCounts('a 3 bedroom place with 2 baths', ['baths?', 'bathrooms?']))).toEqual([2]);
  });
});

describe('categorical values', () => {
  it('True/False cues with negation', () => {
    expect(findBoolean('add_insurance', 'a Hatchback with insurance')).toBe('True');
    expect(findBoolean('add_insurance', 'without insurance')).toBe('False');
    expect(findBoolean('add_insurance', 'and decline rental insurance')).toBe('False');
    expect(findBoolean('trip_protection', 'including travel insurance')).toBe('True');
    expect(findBoolean('private_visibility', 'with private visibility turned off')).toBe('False');
    expect(findBoolean('private_visibility', 'send it privately')).toBe('True');
    expect(findBoolean('has_seating_outdoors', 'with outdoor seating')).toBe('True');
    expect(findBoolean('has_laundry_service', 'a house with laundry service')).toBe('True');
    expect(findBoolean('has_laundry_service', 'a house in Paris')).toBeUndefined();
  });
  it('enum values: whole words, case-insensitive, earliest mention', () => {
    expect(findEnum(['Pool', 'Regular', 'Luxury'], 'a luxury ride, not a pool one')).toBe('Luxury');
    expect(findEnum(['Economy', 'Premium Economy', 'Business'], 'premium economy seats')).toBe(
      'Premium Economy',
    );
    expect(findEnum(['1', '2', '3', '4'], 'a 4.3 rating')).toBeUndefined();
    expect(findEnum(['direct', 'one-stop'], 'a one stop bus')).toBe('one-stop');
  });
  it('enum synonyms only when no value is named', () => {
    expect(findEnum(['Music', 'Sports', 'Theater'], 'the Cody Johnson concert')).toBe('Music');
    expect(findEnum(['Music', 'Sports', 'Theater'], 'a Broadway show')).toBe('Theater');
    expect(findEnum(['Music', 'Sports', 'Theater'], 'a Sports event, not a concert')).toBe('Sports');
    expect(findEnum(['Pool', 'Luxury'], 'a concert')).toBeUndefined();
  });
  it('ratings with two decimals, cities without facility words', () => {
    expect(
      [
        'rated 4.3 or higher',
        'a rating of at least 4.1',
        'with a 4.6 rating',
        'a 4-star place',
        'the 4th',
      ].map(findRating),
    ).toEqual(['4.30', '4.10', '4.60', '4.00', undefined]);
    expect(
      [
        'Long Beach Airport',
        'LAX International Airport',
        'Chicago Union Station',
        'Warsaw',
        'New York City',
      ].map(cityOf),
    ).toEqual(['Long Beach', 'Los Angeles', 'Chicago', 'Warsaw', 'New York']);
  });
});

describe('entities', () => {
  it('capitalised spans after prepositions', () => {
    const text =
      'a cab from Warsaw Chopin Airport to the Museum of Astronomy and Related Sciences in San Jose, CA on March 3rd';
    expect(values(findNamesAfter(text, ['from']))).toEqual(['Warsaw Chopin Airport']);
    expect(values(findNamesAfter(text, ['to']))).toEqual(['Museum of Astronomy and Related Sciences']);
    expect(values(findNamesAfter(text, ['in']))).toEqual(['San Jose']);
    expect(values(findNamesAfter('a ride to 1646 Broadway Street.', ['to']))).toEqual([
      '1646 Broadway Street',
    ]);
    expect(values(findNamesAfter('in March', ['in']))).toEqual([]);
  });
  it('quoted titles and amounts', () => {
    expect(values(findQuoted('tickets for "Good Boys" and “Toy Story”'))).toEqual(['Good Boys', 'Toy Story']);
    expect(values(findAmounts('send $1,200.50 and 30 dollars'))).toEqual(['1200.50', '30']);
  });
  it('a categorical count keeps only values of its list', () => {
    const catalog = loadCatalog('appbench');
    const findtrains = catalog.apis.find((a) => a.id === 'Trains.findtrains')!;
    const ctx = (segment: string) => ({ segment, instruction: segment, currentDate: TODAY });
    expect(
      fillSlots(findtrains, ctx('a train from Paris to Lyon for 10 tickets')).number_of_adults,
    ).toBeUndefined();
    expect(fillSlots(findtrains, ctx('a train from Paris to Lyon for 3 tickets')).number_of_adults).toBe('3');
  });
  it('query expansion: synonyms for common words, not for names', () => {
    expect(expandQuery('Book a ride to 1646 Broadway Street')).not.toContain('event');
    expect(expandQuery('Rent an SUV please')).toContain('car');
    expect(expandQuery('Taxi to the airport. Concert tickets too')).toEqual(
      expect.arrayContaining(['ride', 'event', 'music']),
    );
    expect(expandQuery('tickets for "The Return of the King"')).toEqual(['ticket']);
  });
  it('splits before a verb-led "and" clause', () => {
    expect(splitClauses('Reserve a table at Nopa and book a cab to the airport')).toEqual([
      'Reserve a table at Nopa',
      'book a cab to the airport',
    ]);
    expect(splitClauses('a table for Tom and Jerry')).toEqual(['a table for Tom and Jerry']);
  });
  it('clause splitting at connectives only', () => {
    expect(splitClauses('Find a bus from A to B, and then book a cab; also check the weather.')).toEqual([
      'Find a bus from A to B',
      'book a cab',
      'also check the weather.',
    ]);
  });
});

describe('baselineAgent', () => {
  let catalog: Catalog;
  beforeAll(() => {
    catalog = loadCatalog('appbench');
  });
  const plan = async (instruction: string) =>
    baselineAgent().plan({ instruction, currentDate: TODAY }, { catalog });

  it('book verb: search API then transactional API, outputs linked by name', async () => {
    const r = await plan('Book a table for 2 people at Namu Gaji in San Francisco at 1 pm on March 3rd.');
    expect(r.reply).toBe(
      [
        "Restaurants: [restaurant_name, has_seating_outdoors, has_vegetarian_options, phone_number, rating, address, price_range, location, category = findrestaurants(#location='San Francisco')]",
        "Restaurants: [restaurant_name, date, time, has_seating_outdoors, has_vegetarian_options, phone_number, rating, address, number_of_seats, price_range, location, category = reserverestaurant(#date='2019-03-03', #location=location, #number_of_seats='2', #restaurant_name=restaurant_name, #time='13:00')]",
      ].join('\n'),
    );
    expect(r.modelCalls).toBe(0);
    expect(r.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it('two apps from two clauses, relative dates, counts', async () => {
    const r = await plan(
      "What's the weather in Paris tomorrow? Then find me a train from Paris to Lyon for four people on March 9th.",
    );
    expect(r.reply).toBe(
      [
        "Weather: [precipitation, humidity, wind, temperature, city, date = getweather(#city='Paris', #date='2019-03-02')]",
        "Trains: [from, to, from_station, to_station, date_of_journey, journey_start_time, total, number_of_adults, class, trip_protection = findtrains(#date_of_journey='2019-03-09', #from='Paris', #number_of_adults='4', #to='Lyon')]",
      ].join('\n'),
    );
  });

  it('car reservation: dates in order, enum, negated insurance', async () => {
    const r = await plan(
      'Please reserve a SUV without insurance in Chicago from next Friday at 10 am until March 12th.',
    );
    expect(r.reply).toBe(
      [
        "Rents: [car_type, car_name, pickup_location, start_date, pickup_time, city, end_date, price_per_day = getcarsavailable(#car_type='SUV', #city='Chicago', #end_date='2019-03-12', #pickup_time='10:00', #start_date='2019-03-08')]",
        "Rents: [car_type, car_name, pickup_location, start_date, pickup_time, end_date, price_per_day, add_insurance = reservecar(#add_insurance='False', #car_type=car_type, #end_date=end_date, #pickup_location=pickup_location, #pickup_time=pickup_time, #start_date=start_date)]",
      ].join('\n'),
    );
  });

  it('payment: amount, method, receiver, privacy', async () => {
    const r = await plan('Send $25 privately to Maria using my debit card.');
    expect(r.reply).toBe(
      "Payment: [payment_method, amount, receiver, private_visibility = makepayment(#amount='25', #payment_method='debit card', #private_visibility='True', #receiver='Maria')]",
    );
  });

  it('origin/destination cities: facility in a city, aliases, enum words are not places', async () => {
    const train = await plan(
      'Find a train from Salesforce Transit Center in San Francisco to Sacramento on March 6th.',
    );
    expect(train.reply).toBe(
      "Trains: [from, to, from_station, to_station, date_of_journey, journey_start_time, total, number_of_adults, class, trip_protection = findtrains(#date_of_journey='2019-03-06', #from='San Francisco', #to='Sacramento')]",
    );
    const flight = await plan('Find a one-way flight from JFK to Chicago in Economy class on March 9th.');
    expect(flight.reply).toBe(
      "Flights: [number_of_tickets, seating_class, origin_airport, destination_airport, departure_date, is_nonstop, outbound_departure_time, outbound_arrival_time, price, airlines = searchonewayflight(#departure_date='2019-03-09', #destination_airport='Chicago', #origin_airport='New York', #seating_class='Economy')]",
    );
  });

  it('a search request without a booking verb stays a search; "do not book" is not a booking', async () => {
    const r = await plan(
      'Find a bus from Fresno to Sacramento on March 1st for 3 people, but do not book it yet.',
    );
    expect(r.reply).toBe(
      "Buses: [from_city, to_city, from_station, to_station, departure_date, departure_time, price, num_passengers, category = findbus(#departure_date='2019-03-01', #from_city='Fresno', #num_passengers='3', #to_city='Sacramento')]",
    );
  });
});
