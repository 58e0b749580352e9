/**
 * The benchmark's own tool: a `Units` app with one API, `convert`, described by a catalog and run
 * by a handler, so every call goes through the core's `dispatchCall` (argument checks against the
 * catalog, permission, time limit, typed outcome) like the built-in benchmarks' apps.
 */
import type { AppHandler } from '../../src/apps/index.js';
import { type Catalog, indexCatalog } from '../../src/catalog/index.js';
import { ApiaryError } from '../../src/shared/index.js';

/** Metres or grams per unit. */
const FACTORS: Readonly<Record<string, { dimension: 'length' | 'mass'; base: number }>> = {
  m: { dimension: 'length', base: 1 },
  km: { dimension: 'length', base: 1000 },
  mi: { dimension: 'length', base: 1609.344 },
  g: { dimension: 'mass', base: 1 },
  kg: { dimension: 'mass', base: 1000 },
  lb: { dimension: 'mass', base: 453.59237 },
};
const UNITS = Object.keys(FACTORS);

const unit = (name: string) => ({
  name,
  type: { kind: 'enum' as const, values: UNITS.map((value) => ({ value })) },
  required: true,
});

export const unitsCatalog: Catalog = {
  name: 'units',
  apps: [{ id: 'Units', name: 'Units', description: 'converts between units', owner: 'units' }],
  apis: [
    {
      id: 'Units.convert',
      app: 'Units',
      name: 'convert',
      description: 'converts a value from one unit to another of the same dimension',
      transactional: false,
      parameters: [
        { name: 'value', type: { kind: 'primitive', name: 'number' }, required: true },
        unit('from'),
        unit('to'),
      ],
      outputs: [{ name: 'value', type: { kind: 'primitive', name: 'number' } }],
    },
  ],
};

export const unitsIndex = indexCatalog(unitsCatalog);

export const unitsHandler: AppHandler = {
  appId: 'Units',
  owner: 'units',
  async call(api, args) {
    if (api !== 'convert') throw new ApiaryError('NOT_FOUND', `Units has no API "${api}"`);
    const from = FACTORS[String(args.from)]!;
    const to = FACTORS[String(args.to)]!;
    if (from.dimension !== to.dimension)
      throw new ApiaryError('USAGE', `cannot convert ${from.dimension} (${args.from}) to ${to.dimension} (${args.to})`);
    return { value: (Number(args.value) * from.base) / to.base };
  },
};
