import { describe, expect, it } from 'vitest';
import { type Api, acceptedParameters, missingRequiredParameters, primitive } from './schema.js';

const findbus: Api = {
  id: 'Buses.findbus',
  app: 'Buses',
  name: 'findbus',
  description: 'Find a bus',
  transactional: false,
  parameters: [
    { name: 'from_city', type: primitive('string'), required: true },
    { name: 'to_city', type: primitive('string'), required: true },
    { name: 'kind', type: { kind: 'enum', values: [{ value: 'direct' }] }, required: false },
  ],
  extraParameters: [
    { name: 'origin', type: primitive('string'), required: false },
    { name: 'destination', type: primitive('string'), required: false },
  ],
  alternativeRequired: [['origin', 'destination']],
  extraValues: { kind: ['one-stop', 'direct'] },
  outputs: [],
};
const given =
  (...names: string[]) =>
  (name: string) =>
    names.includes(name);

describe('catalog: what an API accepts beyond what it advertises', () => {
  it('missingRequiredParameters: the own required set, or any alternative set complete', () => {
    expect(missingRequiredParameters(findbus, given('from_city', 'to_city'))).toEqual([]);
    expect(missingRequiredParameters(findbus, given('origin', 'destination'))).toEqual([]);
    expect(missingRequiredParameters(findbus, given('origin', 'to_city')).map((p) => p.name)).toEqual([
      'from_city',
    ]);
    const { alternativeRequired: _, ...plain } = findbus;
    expect(missingRequiredParameters(plain, given('origin', 'destination')).map((p) => p.name)).toEqual([
      'from_city',
      'to_city',
    ]);
  });

  it('acceptedParameters: extra parameters after the own ones, enums with their extra values', () => {
    const accepted = acceptedParameters(findbus);
    expect(accepted.map((p) => p.name)).toEqual(['from_city', 'to_city', 'kind', 'origin', 'destination']);
    expect(accepted[2]!.type).toEqual({ kind: 'enum', values: [{ value: 'direct' }, { value: 'one-stop' }] });
    // the advertised parameter is left as it is
    expect(findbus.parameters[2]!.type).toEqual({ kind: 'enum', values: [{ value: 'direct' }] });
  });
});
