import { describe, expect, it } from 'vitest';
import { loadSgdServices } from './sgd-catalog.js';
import { sgdSiblingIntents } from './sgd-versions.js';

const services = loadSgdServices(); // the bundled data/sgd schemas
const siblingsOf = (service: string, intent: string) =>
  sgdSiblingIntents(services, services.find((s) => s.service_name === service)!, intent).map((s) => [
    s.service.service_name,
    Object.fromEntries(s.toOwn),
  ]);

describe('sgdSiblingIntents: which slot of another SGD version means which own slot', () => {
  it('pairs required slots by position and result slots between pairs when names share a word', () => {
    expect(siblingsOf('Buses_3', 'FindBus')).toEqual([
      [
        'Buses_1',
        {
          from_location: 'from_city',
          to_location: 'to_city',
          leaving_date: 'departure_date',
          leaving_time: 'departure_time',
          travelers: 'num_passengers',
        },
      ],
      [
        'Buses_2',
        {
          origin: 'from_city',
          destination: 'to_city',
          group_size: 'num_passengers',
          origin_station_name: 'from_station',
          destination_station_name: 'to_station',
        },
      ],
    ]);
    // category (Music, Sports) ~ event_type (Music, Theater): a value in common
    expect(siblingsOf('Events_3', 'FindEvents')).toEqual([
      [
        'Events_1',
        {
          category: 'event_type',
          city_of_event: 'city',
          number_of_seats: 'number_of_tickets',
          address_of_location: 'venue_address',
        },
      ],
      ['Events_2', {}],
    ]);
  });

  it('pairs nothing by position alone, nor slots that cannot mean the same', () => {
    // Restaurants_1 serves_alcohol/has_live_music sit where Restaurants_2 has has_seating_outdoors/
    // has_vegetarian_options: not the same (no word in common besides "has")
    expect(siblingsOf('Restaurants_2', 'FindRestaurants')).toEqual([
      ['Restaurants_1', { city: 'location', cuisine: 'category' }],
    ]);
    expect(siblingsOf('Services_1', 'FindProvider')).toEqual([]);
    expect(siblingsOf('Weather_1', 'GetWeather')).toEqual([]);
  });
});
