import { type Api, apiInputJsonSchema, toolNameOf } from '../../catalog/index.js';
import { type DispatchContext, dispatchCall, oneAtATime } from '../../exec/index.js';
import type { AgentTool, Toolset } from './types.js';

/** A catalog API as an agent tool (model-safe name, JSON Schema, parameter list). */
export function apiAsTool(api: Api): AgentTool {
  return {
    name: toolNameOf(api),
    description: api.description,
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
  return {
    tools: apis.map(apiAsTool),
    run: ({ id, tool, args }, signal) =>
      dispatchCall({ id, app: tool.app, api: tool.api, args }, { ...shared, ...(signal ? { signal } : {}) }),
  };
}
