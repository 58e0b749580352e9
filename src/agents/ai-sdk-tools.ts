import { jsonSchema, type Tool, tool } from 'ai';
import { type Api, apiInputJsonSchema, assignToolNames, toolDescriptionOf } from '../catalog/index.js';

// Here, not in catalog/: the catalog domain stays free of the AI SDK (it loads with every CLI start).
/**
 * AI SDK tools keyed by tool name, one per API: names from `assignToolNames(apis)`, which also maps
 * a called name back to its API. Without `execute`: the caller decides how calls run (plan first,
 * execute under permission checks), so the model only proposes calls.
 */
export function toAiSdkTools(apis: readonly Api[]): Record<string, Tool> {
  const tools: Record<string, Tool> = {};
  const { nameOf } = assignToolNames(apis);
  for (const api of apis) {
    tools[nameOf.get(api.id)!] = tool({
      description: toolDescriptionOf(api),
      inputSchema: jsonSchema(apiInputJsonSchema(api) as Parameters<typeof jsonSchema>[0]),
    });
  }
  return tools;
}
