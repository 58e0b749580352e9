import { describe, expect, it } from 'vitest';
import type { Catalog } from '../catalog/index.js';
import { pyRepr } from '../shared/index.js';
import { pythonTypeWord, renderAppApiList, renderAppList } from './render-catalog.js';

const catalog: Catalog = {
  name: 'mini',
  apps: [
    { id: 'Weather', name: 'Weather', description: 'Check the weather', owner: 'app:Weather' },
    { id: 'Rents', name: 'Rents', description: 'Ride and car rental', owner: 'app:Rents' },
  ],
  apis: [
    {
      id: 'Weather.getweather',
      app: 'Weather',
      name: 'getweather',
      description: 'Get the weather',
      transactional: false,
      parameters: [
        {
          name: 'city',
          type: { kind: 'primitive', name: 'string' },
          required: true,
          description: 'City name',
        },
        {
          name: 'date',
          type: { kind: 'primitive', name: 'date' },
          required: false,
          description: "Day's date",
        },
      ],
      outputs: [{ name: 'temperature', type: { kind: 'primitive', name: 'number' }, description: 'Degrees' }],
    },
    {
      id: 'Rents.getride',
      app: 'Rents',
      name: 'getride',
      description: 'Book a cab',
      transactional: true,
      parameters: [
        {
          name: 'ride_type',
          type: { kind: 'enum', values: [{ value: 'Pool' }, { value: 'Luxury' }] },
          required: true,
          description: 'Type',
        },
        {
          name: 'number_of_seats',
          type: { kind: 'primitive', name: 'integer' },
          required: true,
          description: 'Seats',
        },
      ],
      outputs: [],
    },
  ],
};

describe('pyRepr', () => {
  it('renders like Python repr', () => {
    expect(pyRepr({ a: true, b: [1, 'x'], c: null, "it's": 'say "hi"' })).toBe(
      `{'a': True, 'b': [1, 'x'], 'c': None, "it's": 'say "hi"'}`,
    );
    expect(pyRepr(`both ' and "`)).toBe(`'both \\' and "'`);
  });
});

describe('pythonTypeWord', () => {
  it('maps catalog types to the AppBench type words', () => {
    expect(pythonTypeWord({ kind: 'primitive', name: 'integer' })).toBe('int');
    expect(pythonTypeWord({ kind: 'primitive', name: 'number' })).toBe('float');
    expect(pythonTypeWord({ kind: 'primitive', name: 'boolean' })).toBe('bool');
    expect(pythonTypeWord({ kind: 'enum', values: [{ value: '1' }, { value: '2' }] })).toBe('int');
    expect(pythonTypeWord({ kind: 'enum', values: [{ value: 'Pool' }] })).toBe('str');
    expect(pythonTypeWord({ kind: 'primitive', name: 'url' })).toBe('str');
  });
});

describe('catalog rendering', () => {
  it('app-only list', () => {
    expect(renderAppList(catalog)).toBe('Weather: Check the weather \n\n Rents: Ride and car rental \n\n ');
  });
  it('app+API list with "name (type)" keys, in catalog order, filtered', () => {
    expect(renderAppApiList(catalog, ['Weather'])).toBe(
      "Weather: {'desc': 'Check the weather', 'base_required_arguments': {}, 'APIs': {'getweather': {'desc': 'Get the weather', 'is_transactional': False, 'additional_required_arguments': {'city (str)': 'City name'}, 'optional_arguments': {'date (date)': \"Day's date\"}, 'result_arguments': {'temperature (float)': 'Degrees'}}}} \n\n ",
    );
    const both = renderAppApiList(catalog, ['Rents', 'Weather']);
    expect(both.indexOf('Weather: ')).toBe(0);
    expect(both).toContain(
      "'additional_required_arguments': {'ride_type (str)': 'Type (possible values: Pool, Luxury)', 'number_of_seats (int)': 'Seats'}",
    );
    expect(both).toContain("'is_transactional': True");
  });
});
