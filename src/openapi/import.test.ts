import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogSchema } from '../catalog/index.js';
import { openApiToCatalog, parseOpenApiSpec, readOpenApiSpec } from './index.js';

const fixture = (name: string): string =>
  join(import.meta.dirname, '..', 'catalog', '__fixtures__', 'openapi', name);

const importFixture = async (name: string) => openApiToCatalog(await readOpenApiSpec(fixture(name)));

describe('openApiToCatalog', () => {
  it('imports an OpenAPI 3.0 YAML spec: one app, one API per operation, $refs resolved', async () => {
    const { catalog, problems } = await importFixture('petstore-3.0.yaml');
    expect(problems).toEqual([]);
    expect(CatalogSchema.parse(catalog)).toEqual(catalog);
    expect(catalog.apps).toEqual([
      {
        id: 'pet-store',
        name: 'Pet Store',
        description: 'A small pet shop.',
        owner: 'openapi:pet-store',
        category: 'openapi',
        http: {
          baseUrl: 'https://eu.pets.example.com/v1',
          security: [
            { name: 'apiKey', type: 'apiKey', in: 'header', paramName: 'X-Api-Key', env: 'PET_STORE_APIKEY' },
            { name: 'bearerAuth', type: 'bearer', env: 'PET_STORE_BEARERAUTH' },
          ],
        },
      },
    ]);
    expect(catalog.apis.map((a) => [a.id, a.transactional, a.http?.method, a.http?.security])).toEqual([
      ['pet-store.listPets', false, 'GET', [['apiKey']]],
      ['pet-store.addPet', true, 'POST', [['apiKey']]],
      ['pet-store.get_pets_petId', false, 'GET', [['apiKey']]],
      ['pet-store.deletePet', true, 'DELETE', [['bearerAuth']]],
      ['pet-store.getPetPhoto', false, 'GET', []],
    ]);
    const [list, add, get] = catalog.apis;
    expect(list!.parameters).toEqual([
      {
        name: 'limit',
        type: { kind: 'primitive', name: 'integer', constraints: { minimum: 1, maximum: 100 } },
        required: false,
        default: 20,
        description: 'How many pets at most',
      },
      {
        name: 'status',
        type: { kind: 'enum', values: [{ value: 'available' }, { value: 'pending' }, { value: 'sold' }] },
        required: false,
        description: 'Only pets with this status',
      },
    ]);
    expect(add!.parameters.map((p) => [p.name, p.type.kind, p.required])).toEqual([
      ['X-Request-Id', 'primitive', false],
      ['name', 'primitive', true],
      ['tag', 'primitive', false],
      ['status', 'enum', false],
    ]);
    expect(add!.http!.arguments).toEqual({
      'X-Request-Id': { in: 'header' },
      name: { in: 'body' },
      tag: { in: 'body' },
      status: { in: 'body' },
    });
    // path-level parameters apply to every operation of the path; path parameters are required
    expect(get!.parameters).toEqual([
      {
        name: 'petId',
        type: { kind: 'primitive', name: 'string' },
        required: true,
        description: "The pet's id",
      },
    ]);
    expect(get!.description).toBe('Get one pet');
  });

  it('imports OpenAPI 3.1 JSON: names made valid and unique, a non-object body as one parameter', async () => {
    const { catalog, problems } = await importFixture('notes-3.1.json');
    expect(problems).toEqual([]);
    expect(catalog.apps[0]!.http).toEqual({
      baseUrl: 'https://notes.example.org/api',
      security: [{ name: 'oauth', type: 'bearer', env: 'NOTES_API_OAUTH' }],
    });
    expect(catalog.apis.map((a) => a.id)).toEqual([
      'notes-api.search_notes',
      'notes-api.put_notes',
      'notes-api.search_notes_2',
    ]);
    const [search, put, patch] = catalog.apis;
    expect(search!.parameters.map((p) => [p.name, p.type, p.required])).toEqual([
      ['q', { kind: 'primitive', name: 'string', constraints: { minLength: 1 } }, true],
      ['tags', { kind: 'array', items: { kind: 'primitive', name: 'string' } }, false],
      ['archived', { kind: 'primitive', name: 'boolean' }, false],
    ]);
    expect(put!.parameters[0]!.name).toBe('body');
    expect(put!.parameters[0]!.type).toEqual({
      kind: 'array',
      items: {
        kind: 'entity',
        name: 'body[]',
        fields: [
          {
            name: 'text',
            type: { kind: 'primitive', name: 'string' },
            required: true,
            description: "The note's text",
          },
          { name: 'due', type: { kind: 'primitive', name: 'datetime' }, required: false },
        ],
      },
    });
    expect(patch!.parameters.map((p) => [p.name, p.required])).toEqual([
      ['id', true],
      ['text', false],
      ['due', false],
    ]);
  });

  it('imports Swagger 2.0: host + basePath, inline parameter types, the body parameter', async () => {
    const { catalog, problems } = await importFixture('weather-swagger-2.0.yaml');
    expect(problems).toEqual([]);
    expect(catalog.apps[0]!.http).toEqual({
      baseUrl: 'https://weather.example.net/v2',
      security: [
        { name: 'key', type: 'apiKey', in: 'query', paramName: 'appid', env: 'WEATHER_SERVICE_KEY' },
      ],
    });
    const [forecast, alert] = catalog.apis;
    expect(forecast!.parameters).toEqual([
      { name: 'city', type: { kind: 'primitive', name: 'string' }, required: true },
      {
        name: 'days',
        type: { kind: 'primitive', name: 'integer', constraints: { minimum: 1, maximum: 14 } },
        required: false,
      },
      {
        name: 'units',
        type: { kind: 'enum', values: [{ value: 'metric' }, { value: 'imperial' }] },
        required: false,
        default: 'metric',
      },
    ]);
    expect(alert!.transactional).toBe(true);
    expect(alert!.parameters.map((p) => [p.name, p.required, p.description])).toEqual([
      ['city', true, undefined],
      ['threshold', true, 'Temperature that triggers the alert'],
    ]);
  });

  it('refuses a document that is not OpenAPI, naming the file and the JSON pointer', async () => {
    await expect(parseOpenApiSpec('asyncapi: 2.0.0\npaths: {}\n', 'x.yaml')).rejects.toThrow(
      'x.yaml: field "/openapi": not an OpenAPI spec: it has neither "openapi" (3.x) nor "swagger" ("2.0")',
    );
    await expect(parseOpenApiSpec('openapi: 2.5.0\npaths: {}\n', 'x.yaml')).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: 'x.yaml: field "/openapi": OpenAPI version "2.5.0" is not supported (3.0.x or 3.1.x)',
    });
    await expect(parseOpenApiSpec('{"openapi": "3.0.0"}', 'x.json')).rejects.toThrow(
      'x.json: field "/paths": "paths" must be an object',
    );
    await expect(parseOpenApiSpec('- a\n- b\n', 'x.yaml')).rejects.toThrow(
      'x.yaml: field "/": an OpenAPI spec must be an object',
    );
  });

  it('leaves out an operation it cannot convert, naming the spec and the operation pointer', async () => {
    const spec = await parseOpenApiSpec(
      JSON.stringify({
        openapi: '3.0.0',
        info: { title: 'T' },
        paths: {
          '/a/{x}': {
            get: { parameters: [{ name: 'x', in: 'path', schema: { allOf: [{ type: 'string' }] } }] },
          },
          '/b': { get: { operationId: 'b' } },
        },
      }),
      'spec.json',
    );
    const { catalog, problems } = openApiToCatalog(spec);
    expect(catalog.apis.map((a) => a.id)).toEqual(['t.b']);
    expect(problems.map((p) => p.message)).toEqual([
      'spec.json: record #/paths/~1a~1{x}/get: field "x": "allOf" schemas are not supported',
    ]);
  });
});
