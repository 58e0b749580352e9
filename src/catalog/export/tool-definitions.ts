import { createHash } from 'node:crypto';
import type { Api } from '../schema.js';
import { apiInputJsonSchema, type JsonSchema } from './json-schema.js';

/**
 * A function name OpenAI accepts (`^[a-zA-Z0-9_-]{1,64}$`): `<app>_<api>` with other characters
 * replaced by `_`; names over 64 characters keep a hash suffix so they stay unique.
 */
export function toolNameOf(api: Api): string {
  const raw =
    api.name.startsWith(`${api.app}.`) || api.name === api.app ? api.name : `${api.app}_${api.name}`;
  const safe = raw.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (safe.length <= 64) return safe;
  const hash = createHash('sha1').update(raw).digest('hex').slice(0, 8);
  return `${safe.slice(0, 55)}_${hash}`;
}

export interface OpenAiToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

/** Tool definitions in the OpenAI Chat Completions `tools` format. */
export function toOpenAiTools(apis: readonly Api[]): OpenAiToolDefinition[] {
  return apis.map((api) => ({
    type: 'function',
    function: { name: toolNameOf(api), description: api.description, parameters: apiInputJsonSchema(api) },
  }));
}
