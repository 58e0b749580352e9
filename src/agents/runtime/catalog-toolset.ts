import {
  type Api,
  apiInputJsonSchema,
  assignToolNames,
  toolDescriptionOf,
  toolNameOf,
} from '../../catalog/index.js';
import { type DispatchContext, dispatchCall, oneAtATime } from '../../exec/index.js';
import type { AgentTool, Toolset } from './types.js';

/**
 * A catalog API as an agent tool (model-safe name, JSON Schema, parameter list). `name` defaults to
 * `toolNameOf(api)`; a set of tools takes its names from `assignToolNames` (distinct names).
 */
export function apiAsTool(api: Api, name = toolNameOf(api)): AgentTool {
  return {
    name,
    description: toolDescriptionOf(api),
    inputSchema: apiInputJsonSchema(api),
    app: api.app,
    api: api.name,
    parameters: api.parameters.map((p) => ({
      name: p.name,
      required: p.required,
      type: p.type.kind === 'primitive' ? p.type.name : p.type.kind,
      ...(p.description ? { description: p.description } : {}),
    })),
  };
}

/**
 * Catalog APIs as the agent's tools, each call run by `dispatchCall` under `context` (its catalog,
 * app handlers, grant and approver): the agent gets no other way to reach an app.
 */
export function catalogToolset(apis: readonly Api[], context: Omit<DispatchContext, 'signal'>): Toolset {
  // Calls of one turn run in parallel; their approvals are asked one after the other.
  const approve = context.approve ? oneAtATime(context.approve) : undefined;
  const shared = { ...context, ...(approve ? { approve } : {}) };
  const { nameOf } = assignToolNames(apis);
  return {
    tools: apis.map((api) => apiAsTool(api, nameOf.get(api.id))),
    run: ({ id, tool, args }, signal) =>
      dispatchCall({ id, app: tool.app, api: tool.api, args }, { ...shared, ...(signal ? { signal } : {}) }),
  };
}
