import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { InputInvalidError, NotFoundError } from '../shared/index.js';
import { indexCatalog } from './catalog-index.js';
import { loadCatalog } from './load-catalog.js';
import { acceptedParameters } from './schema.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

// These read only the bundled data/ folder (SGD schemas, GTA toolmeta, ShortcutsBench definitions).
const bundled = { dataDir: join(import.meta.dirname, '../../data') };

describe('bundled catalogs', () => {
  it('AppBench: 15 apps, 33 APIs in the official order', () => {
    const c = loadCatalog('appbench', bundled);
    expect(c.apps.map((a) => a.id)).toEqual([
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
    ]);
    expect(c.apis).toHaveLength(33);
    const index = indexCatalog(c);
    const reserve = index.api('Rents', 'reservecar')!;
    expect(reserve.transactional).toBe(true);
    expect(reserve.parameters.map((p) => [p.name, p.required])).toEqual([
      ['pickup_location', true],
      ['start_date', true],
      ['pickup_time', true],
      ['end_date', true],
      ['car_type', true],
      ['add_insurance', true],
    ]);
    // Slots of RentalCars_1/2.ReserveCar (other versions of the service) are accepted, not advertised.
    expect(reserve.extraParameters!.map((p) => [p.name, p.required])).toEqual([
      ['pickup_date', false],
      ['dropoff_date', false],
      ['type', false],
    ]);
    expect(reserve.parameters.find((p) => p.name === 'car_type')!.type).toEqual({
      kind: 'enum',
      values: [{ value: 'Hatchback' }, { value: 'Sedan' }, { value: 'SUV' }],
    });
    expect(reserve.parameters.find((p) => p.name === 'add_insurance')!.type).toEqual({
      kind: 'primitive',
      name: 'boolean',
    });
    expect(reserve.parameters.find((p) => p.name === 'start_date')!.type).toEqual({
      kind: 'primitive',
      name: 'date',
    });
    // AppBench overrides SGD's transactional flag for these two.
    expect(index.api('Events', 'buyeventtickets')!.transactional).toBe(false);
    expect(index.api('Media', 'playmovie')!.transactional).toBe(false);
    // Movies_3.FindMovies becomes reviewmovies; Services keeps underscores.
    expect(index.api('Movies', 'reviewmovies')!.outputs.map((o) => o.name)).toContain('percent_rating');
    expect(index.apisOf('Services').map((a) => a.name)).toEqual([
      'book_stylist_appointment',
      'find_stylist_provider',
      'book_therapist_appointment',
      'find_therapist_provider',
    ]);
    expect(index.appsWithApi('findmovies')).toEqual(['Media', 'Movies']);
  });

  it('AppBench arguments: own slots, then other versions of the service, then result-slot filters', () => {
    const index = indexCatalog(loadCatalog('appbench', bundled));
    // The advertised interface is SGD's own intent; the rest are extra parameters.
    expect(index.api('Events', 'findevents')!.parameters.map((p) => p.name)).toEqual([
      'event_type',
      'city',
      'date',
    ]);
    expect(index.api('Payment', 'makepayment')!.extraParameters).toBeUndefined();
    const shape = (app: string, api: string) =>
      acceptedParameters(index.api(app, api)!).map((p) => [
        p.name,
        p.required,
        p.type.kind === 'enum'
          ? p.type.values.map((v) => v.value).join('|')
          : p.type.kind === 'primitive' && p.type.name,
      ]);
    // Hand-checked against data/sgd/*/schema.json: Events_3.FindEvents takes event_type (Music,
    // Theater), city, date; Events_1.FindEvents category (Music, Sports), city_of_event,
    // subcategory, date; Events_2.FindEvents event_type (Music, Sports), city, date, category
    // (free text, so Events_1's categorical slot of that name takes any text); then Events_3's
    // result slots. Every version's values are accepted: event_type also takes Sports.
    expect(shape('Events', 'findevents')).toEqual([
      ['event_type', true, 'Music|Theater|Sports'],
      ['city', true, 'string'],
      ['date', false, 'date'],
      ['category', false, 'string'],
      ['city_of_event', false, 'string'],
      ['subcategory', false, 'string'],
      ['event_name', false, 'string'],
      ['time', false, 'time'],
      ['price_per_ticket', false, 'number'],
      ['venue', false, 'string'],
      ['venue_address', false, 'string'],
    ]);
    // A transactional intent takes no result-slot filters: Events_3.BuyEventTickets plus
    // Events_1's number_of_seats (1–9) and city_of_event.
    expect(shape('Events', 'buyeventtickets').map(([n, r]) => `${n}${r ? '*' : ''}`)).toEqual([
      'event_name*',
      'number_of_tickets*',
      'date*',
      'city*',
      'number_of_seats',
      'city_of_event',
    ]);
    // Any version's required set satisfies a call (not a version that requires nothing).
    expect(index.api('Buses', 'findbus')!.alternativeRequired).toEqual([
      ['from_location', 'to_location', 'leaving_date'],
      ['origin', 'destination', 'departure_date'],
    ]);
    expect(index.api('Events', 'findevents')!.alternativeRequired).toEqual([['category', 'city_of_event']]);
    expect(index.api('Movies', 'findmovies')!.alternativeRequired).toBeUndefined();
    expect(index.api('Events', 'findevents')!.extraValues).toEqual({ event_type: ['Sports'] });
    // Services versions are other trades (dentists, doctors, therapists): nothing borrowed.
    expect(shape('Services', 'find_stylist_provider')).toEqual([
      ['city', true, 'string'],
      ['is_unisex', false, 'boolean'],
      ['stylist_name', false, 'string'],
      ['phone_number', false, 'string'],
      ['average_rating', false, 'number'],
      ['street_address', false, 'string'],
    ]);
    // Only the own version's optional slot keeps SGD's default.
    const find = acceptedParameters(index.api('Restaurants', 'findrestaurants')!);
    expect(find.filter((p) => p.default !== undefined).map((p) => p.name)).toEqual([]);
    expect(find.map((p) => p.name).slice(5, 9)).toEqual([
      'cuisine',
      'city',
      'has_live_music',
      'serves_alcohol',
    ]);
  });

  it('SGD: 45 services and 88 intents across train+dev+test', () => {
    const c = loadCatalog('sgd', bundled);
    expect(c.apps).toHaveLength(45);
    expect(c.apis).toHaveLength(88);
    expect(indexCatalog(c).api('Alarm_1', 'AddAlarm')!.parameters).toEqual([
      {
        name: 'new_alarm_time',
        type: { kind: 'primitive', name: 'time' },
        required: true,
        description: 'Time to set for the new alarm',
      },
      {
        name: 'new_alarm_name',
        type: { kind: 'primitive', name: 'string' },
        required: false,
        default: 'New alarm',
        description: 'Name to use for the new alarm',
      },
    ]);
  });

  it('GTA: 14 tools with categories', () => {
    const c = loadCatalog('gta', bundled);
    expect(c.apis).toHaveLength(14);
    const cats: Record<string, number> = {};
    for (const a of c.apis) cats[a.category!] = (cats[a.category!] ?? 0) + 1;
    expect(cats).toEqual({ perception: 4, operation: 3, logic: 5, creativity: 2 });
    const search = indexCatalog(c).api('GoogleSearch', 'GoogleSearch')!;
    expect(search.parameters.map((p) => [p.name, p.type, p.required])).toEqual([
      ['query', { kind: 'primitive', name: 'string' }, true],
      ['k', { kind: 'primitive', name: 'integer' }, false],
    ]);
  });

  it('ShortcutsBench: 1,414 typed APIs grouped by app', () => {
    const c = loadCatalog('shortcuts', bundled);
    expect(c.apis).toHaveLength(1414);
    const index = indexCatalog(c);
    const resize = index.apiById('is.workflow.actions.resizewindow')!;
    expect(resize.app).toBe('is.workflow.actions');
    const config = resize.parameters.find((p) => p.name === 'WFConfiguration')!;
    expect(config.default).toBe('Fit Screen');
    expect(config.type.kind === 'enum' && config.type.values.length).toBe(10);
    expect(resize.parameters.find((p) => p.name === 'WFBringToFront')).toMatchObject({
      type: { kind: 'primitive', name: 'boolean' },
      default: true,
    });
    const mindnode = index.apiById('com.ideasoncanvas.mindnode.macos.MNCNewDocumentIntent')!;
    expect(mindnode.parameters[0]!.type).toEqual({
      kind: 'enum',
      values: [
        { value: 'pasteboard', label: 'with Contents of Clipboard' },
        { value: 'none', label: 'without specifying Content' },
        { value: 'string', label: 'with Text' },
      ],
    });
    expect(index.apiById('is.workflow.actions.format.date')!.outputs).toEqual([
      { name: 'Formatted Date', type: { kind: 'entity', name: 'NSString' } },
    ]);
  });
});

describe('loading errors name the file, record and field', () => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-cat-'));

  it('a truncated JSON catalog file', () => {
    const f = join(dir, 'truncated.json');
    writeFileSync(f, '{"name": "x", "apps": [');
    expect(() => loadCatalog(f)).toThrowError(InputInvalidError);
    expect(() => loadCatalog(f)).toThrowError(/truncated\.json: not valid JSON/);
  });

  it('a wrong field type', () => {
    const f = join(dir, 'wrong.json');
    writeFileSync(
      f,
      JSON.stringify({ name: 'x', apps: [], apis: [{ id: 'a', app: 'b', name: 'c', description: 1 }] }),
    );
    try {
      loadCatalog(f);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InputInvalidError);
      expect((e as InputInvalidError).field).toBe('apis[0].description');
      expect((e as Error).message).toContain('wrong.json');
    }
  });

  it('a bad SGD service names the schema file and the service index', () => {
    const sgd = join(dir, 'sgd');
    for (const split of ['train', 'dev', 'test']) {
      const d = join(sgd, 'sgd', split);
      mkdirSync(d, { recursive: true });
      writeFileSync(
        join(d, 'schema.json'),
        JSON.stringify(
          split === 'dev' ? [{ service_name: 'X_1', description: 'd', slots: [], intents: 'oops' }] : [],
        ),
      );
    }
    try {
      loadCatalog('sgd', { dataDir: sgd });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InputInvalidError);
      expect((e as InputInvalidError).record).toBe(0);
      expect((e as InputInvalidError).field).toBe('intents');
      expect((e as Error).message).toMatch(/sgd\/dev\/schema\.json: record 0: field "intents"/);
    }
  });

  it('ToolBench without data names what to pass', () => {
    const saved = process.env.APIARY_DATA;
    delete process.env.APIARY_DATA;
    try {
      expect(() => loadCatalog('toolbench', { dataDir: dir })).toThrowError(NotFoundError);
      expect(() => loadCatalog('toolbench', { dataDir: dir })).toThrowError(/toolbench\/tools\.jsonl/);
    } finally {
      if (saved !== undefined) process.env.APIARY_DATA = saved;
    }
  });

  it('a bad ToolBench line names the line and field', async () => {
    const { toolBenchCatalog } = await import('../benchmarks/toolbench/catalog.js');
    const good = JSON.stringify({ category: 'Data', tool_file: 't', tool_name: 'T', api_list: [] });
    const bad = JSON.stringify({ category: 'Data', tool_file: 't2', tool_name: 5, api_list: [] });
    expect(() => toolBenchCatalog(`${good}\n${bad}\n`, 'tools.jsonl')).toThrowError(
      /tools\.jsonl: record line 2: field "tool_name"/,
    );
    expect(() => toolBenchCatalog(`${good}\n{"category":`, 'tools.jsonl')).toThrowError(
      /record line 2: not valid JSON/,
    );
  });
});
