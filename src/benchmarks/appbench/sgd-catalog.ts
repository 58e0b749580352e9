import { z } from 'zod';
import type { Api, App, Catalog, Parameter, ParamType } from '../../catalog/index.js';
import {
  type CatalogSource,
  type CatalogSourceOptions,
  primitive,
  requireDataFile,
} from '../../catalog/index.js';
import { parseWith, readJsonFile } from '../../shared/index.js';

/** Schema-Guided Dialogue `schema.json`: an array of services (Rastogi et al., CC BY-SA 4.0). */
const SgdSlotSchema = z.object({
  name: z.string(),
  description: z.string(),
  is_categorical: z.boolean(),
  possible_values: z.array(z.string()),
});
const SgdIntentSchema = z.object({
  name: z.string(),
  description: z.string(),
  is_transactional: z.boolean(),
  required_slots: z.array(z.string()),
  optional_slots: z.record(z.string(), z.string()),
  result_slots: z.array(z.string()),
});
const SgdServiceSchema = z.object({
  service_name: z.string(),
  description: z.string(),
  slots: z.array(SgdSlotSchema),
  intents: z.array(SgdIntentSchema),
});
export type SgdService = z.infer<typeof SgdServiceSchema>;
export type SgdSlot = z.infer<typeof SgdSlotSchema>;
export type SgdIntent = z.infer<typeof SgdIntentSchema>;

/** Validates one `schema.json` document; errors name the file, the service index and the field. */
function parseSgdSchema(json: unknown, file: string): SgdService[] {
  if (!Array.isArray(json)) return parseWith(z.array(SgdServiceSchema), json, { file });
  return json.map((service, i) => parseWith(SgdServiceSchema, service, { file, record: i }));
}

/**
 * Merges the services of several splits (train, dev, test). A service present in several
 * splits is identical in the released data; the first occurrence wins.
 */
function mergeSgdServices(splits: readonly SgdService[][]): SgdService[] {
  const byName = new Map<string, SgdService>();
  for (const services of splits)
    for (const s of services) if (!byName.has(s.service_name)) byName.set(s.service_name, s);
  return [...byName.values()];
}

/**
 * SGD has no slot types; we infer them from categorical values and slot names so that
 * validation can catch `'tomorrow'` in a date slot. The rules are documented in docs/catalogs.md.
 */
function inferSgdSlotType(slot: SgdSlot): ParamType {
  const values = slot.possible_values;
  if (slot.is_categorical && values.length > 0) {
    if (values.every((v) => v === 'True' || v === 'False')) return primitive('boolean');
    return { kind: 'enum', values: values.map((value) => ({ value })) };
  }
  const n = slot.name;
  if (/(^|_)date($|_)|_date_of_|^date_of_/.test(n)) return primitive('date');
  if (/wait_time/.test(n)) return primitive('integer');
  if (/(^|_)time($|_)/.test(n)) return primitive('time');
  if (/^(number_of|num)_/.test(n)) return primitive('integer');
  if (/(^|_)(price|fare|total|amount|rating|temperature|humidity|wind|precipitation|balance)($|_)/.test(n))
    return primitive('number');
  return primitive('string');
}

export function slotParameter(slot: SgdSlot, required: boolean, defaultValue?: string): Parameter {
  const p: Parameter = {
    name: slot.name,
    type: inferSgdSlotType(slot),
    required,
    description: slot.description,
  };
  if (defaultValue !== undefined && defaultValue !== 'dontcare') p.default = defaultValue;
  return p;
}

/** The slot `name` of `service` (an empty description when the schema omits it). */
export function sgdSlot(service: SgdService, name: string): SgdSlot {
  return (
    service.slots.find((s) => s.name === name) ?? {
      name,
      description: '',
      is_categorical: false,
      possible_values: [],
    }
  );
}

/** Turns one SGD intent into an API of app `appId` named `apiName`. */
export function sgdIntentToApi(service: SgdService, intent: SgdIntent, appId: string, apiName: string): Api {
  const slot = (name: string): SgdSlot => sgdSlot(service, name);
  return {
    id: `${appId}.${apiName}`,
    app: appId,
    name: apiName,
    description: intent.description,
    transactional: intent.is_transactional,
    parameters: [
      ...intent.required_slots.map((n) => slotParameter(slot(n), true)),
      ...Object.entries(intent.optional_slots).map(([n, d]) => slotParameter(slot(n), false, d)),
    ],
    outputs: intent.result_slots.map((n) => ({
      name: n,
      type: inferSgdSlotType(slot(n)),
      description: slot(n).description,
    })),
  };
}

/** The raw SGD catalog: one app per service (`Hotels_2`), one API per intent (`SearchHouse`). */
function sgdCatalog(services: readonly SgdService[]): Catalog {
  const apps: App[] = services.map((s) => ({
    id: s.service_name,
    name: s.service_name,
    description: s.description,
    owner: `app:${s.service_name}`,
    category: s.service_name.split('_')[0],
  }));
  const apis = services.flatMap((s) => s.intents.map((i) => sgdIntentToApi(s, i, s.service_name, i.name)));
  return { name: 'sgd', apps, apis };
}

/** Reads and merges SGD `schema.json` of train, dev and test. */
export function loadSgdServices(opts: CatalogSourceOptions = {}): SgdService[] {
  const splits = ['train', 'dev', 'test'].map((split) => {
    const path = requireDataFile(
      `sgd/${split}/schema.json`,
      opts,
      'pass --data DIR with sgd/<split>/schema.json',
    );
    return parseSgdSchema(readJsonFile(path), path);
  });
  return mergeSgdServices(splits);
}

/** `--catalog sgd`: every service and intent of the Schema-Guided Dialogue schemas. */
export const sgdCatalogSource: CatalogSource = {
  name: 'sgd',
  description: 'Schema-Guided Dialogue: every service and intent of train, dev and test',
  load: (opts) => sgdCatalog(loadSgdServices(opts)),
};
