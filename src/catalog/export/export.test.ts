import { describe, expect, it } from 'vitest';
import { toAiSdkTools } from '../../agents/ai-sdk-tools.js';
import type { Api, Catalog } from '../schema.js';
import { apiInputJsonSchema } from './json-schema.js';
import { renderCatalogText } from './render-text.js';
import { toOpenAiTools, toolNameOf } from './tool-definitions.js';

const reserve: Api = {
  id: 'Rents.reservecar',
  app: 'Rents',
  name: 'reservecar',
  description: 'Make a rental car reservation',
  transactional: true,
  parameters: [
    {
      name: 'start_date',
      type: { kind: 'primitive', name: 'date' },
      required: true,
      description: 'First day',
    },
    {
      name: 'car_type',
      type: { kind: 'enum', values: [{ value: 'Sedan' }, { value: 'SUV', label: 'Sport utility' }] },
      required: false,
      default: 'Sedan',
    },
  ],
  outputs: [{ name: 'car_name', type: { kind: 'primitive', name: 'string' } }],
};
const catalog: Catalog = {
  name: 'mini',
  apps: [{ id: 'Rents', name: 'Rents', description: 'Car  rental\nsolutions', owner: 'app:Rents' }],
  apis: [reserve],
};

describe('catalog exports', () => {
  it('JSON Schema of an API input', () => {
    expect(apiInputJsonSchema(reserve)).toEqual({
      type: 'object',
      properties: {
        start_date: { type: 'string', format: 'date', description: 'First day' },
        car_type: {
          type: 'string',
          enum: ['Sedan', 'SUV'],
          description: 'SUV: Sport utility',
          default: 'Sedan',
        },
      },
      required: ['start_date'],
      additionalProperties: false,
    });
  });

  it('OpenAI tool definitions with safe names', () => {
    expect(toOpenAiTools([reserve])[0]!.function.name).toBe('Rents_reservecar');
    const long = { ...reserve, app: 'com.example.very.long.bundle.identifier.app', name: 'x'.repeat(70) };
    const name = toolNameOf(long);
    expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(name).toHaveLength(64);
    expect(toolNameOf({ ...reserve, app: 'is.workflow.actions', name: 'is.workflow.actions.url' })).toBe(
      'is_workflow_actions_url',
    );
  });

  it('AI SDK tools carry the same JSON Schema', async () => {
    const tools = toAiSdkTools([reserve]);
    const t = tools.Rents_reservecar!;
    expect(t.description).toBe('Make a rental car reservation');
    const schema = await (t.inputSchema as { jsonSchema: unknown }).jsonSchema;
    expect(schema).toEqual(apiInputJsonSchema(reserve));
  });

  it('compact text rendering is exact and deterministic', () => {
    expect(renderCatalogText(catalog)).toBe(
      [
        'Rents: Car rental solutions',
        '  reservecar!(start_date: date, car_type?: Sedan|SUV=Sedan) -> car_name',
        '      Make a rental car reservation',
      ].join('\n'),
    );
    expect(renderCatalogText(catalog, { descriptions: false })).toBe(
      'Rents: Car rental solutions\n  reservecar!(start_date: date, car_type?: Sedan|SUV=Sedan) -> car_name',
    );
  });
});
