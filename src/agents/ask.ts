import type { Api, Catalog } from '../catalog/index.js';
import type { DemoSelector, Retriever } from '../retrieval/index.js';
import { demoTurns } from './llm-agent-options.js';
import { nativeToolsProtocol } from './protocols/native-tools.js';
import type { AgentTraceSink } from './runtime/agent-trace.js';
import { type AgentBudget, runAgent } from './runtime/run-agent.js';
import type { AgentResult, CallRecord, Toolset, TurnTaker } from './runtime/types.js';

export interface AskOptions {
  request: string;
  catalog: Catalog;
  /** Ranks the catalog's APIs for the request, in `catalog.apis` order (TPTU-v2's API retriever). */
  retriever: Retriever;
  /** APIs offered to the model (default 8). */
  topK?: number;
  /** Worked examples for the request (TPTU-v2's demo selector); none when absent. */
  demos?: DemoSelector;
  /** Binds the retrieved APIs to executable apps (normally `catalogToolset` over `dispatchCall`). */
  toolset: (apis: readonly Api[]) => Toolset;
  turn: TurnTaker;
  /** Extra system context (e.g. the current date). */
  context?: string;
  budget?: AgentBudget;
  askUser?: (question: string) => Promise<string>;
  signal?: AbortSignal;
  trace?: AgentTraceSink;
  /** Told of the retrieved APIs (`App.api`, best first) before the first turn. */
  onRetrieved?: (ids: string[]) => void;
  /** Told of each call as it settles. */
  onCall?: (record: CallRecord) => void;
}

export interface AskResult extends AgentResult {
  /** The APIs retrieved and offered to the model (`App.api`), best first. */
  retrieved: string[];
  /** How the demos were chosen (`task` examples above the threshold, else `api` examples), if any. */
  demoLevel?: 'task' | 'api';
}

/**
 * TPTU-v2's pipeline end to end: retrieve the APIs for a request, select demonstrations, then run
 * the tool loop with only the retrieved APIs as tools (each call through `dispatchCall`).
 */
export async function askAgent(opts: AskOptions): Promise<AskResult> {
  const hits = await opts.retriever.search(opts.request, opts.topK ?? 8);
  const apis = hits.map((h) => opts.catalog.apis[h.doc]!).filter(Boolean);
  opts.onRetrieved?.(apis.map((a) => a.id));
  const selection = opts.demos ? await opts.demos.select(opts.request) : undefined;
  const system =
    'You are an assistant that acts through tools. Call the tools you need (several at once when they do ' +
    'not depend on each other), use their results as arguments of later calls, and answer briefly when the ' +
    `request is done.${opts.context ? `\n${opts.context}` : ''}`;
  const result = await runAgent({
    turn: opts.turn,
    protocol: nativeToolsProtocol({ system }),
    instruction: opts.request,
    toolset: opts.toolset(apis),
    history: selection ? demoTurns(selection.demos) : [],
    ...(opts.budget ? { budget: opts.budget } : {}),
    ...(opts.askUser ? { askUser: opts.askUser } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.trace ? { trace: opts.trace } : {}),
    ...(opts.onCall ? { onCall: opts.onCall } : {}),
  });
  return {
    ...result,
    retrieved: apis.map((a) => a.id),
    ...(selection ? { demoLevel: selection.level } : {}),
  };
}
