import type { ModelMessage } from 'ai';
import {
  type AgentProtocol,
  type AgentResult,
  type AgentTool,
  type AgentTraceSink,
  type Decision,
  nativeToolsProtocol,
  type Observation,
  parseReactReply,
  REACT_FORCE_STOP,
  REACT_INVALID_ACTION_ERROR,
  REACT_NO_ACTION_ERROR,
  reactProtocol,
  runAgent,
  type Toolset,
  type TurnTaker,
} from '../../agents/index.js';
import type { ContentPart } from '../../apps/index.js';
import { apiInputJsonSchema, type CatalogIndex } from '../../catalog/index.js';
import { contentToText, type DispatchContext, dispatchCall } from '../../exec/index.js';
import { type PyJson, type PyObject, pyGet, pyJsonDumps, toPyJson } from '../../shared/index.js';
import { type Solver, withOutput } from '../../tasks/index.js';
import type { GtaRecord } from './dataset.js';
import { pyObject } from './py-value.js';
import type { GtaConstrainOption } from './react-grammar.js';
import type { GtaOutput, GtaSample } from './register.js';
import {
  answerStep,
  callStep,
  GTA_FINISH_ACTION,
  GTA_INVALID_ACTION,
  GTA_NO_ACTION,
  pyArgs,
} from './step-execute.js';
import { type GtaToolMeta, gtaAgentTool } from './toolmeta.js';

/**
 * GTA's end-to-end mode (`every`; docs/gta.md, "Official scoring:
 * end-to-end metrics"): an agent on the runtime (`runAgent`) calls the
 * real tools through `dispatchCall`, and every action is written down as the step list the official
 * evaluator scores: a thought step, the action step and, after every non-finish action, a
 * tool step holding the result list (or null when the call failed).
 */

/** Lagent's `max_turn` in GTA's config. */
const GTA_MAX_TURN = 10;

export type GtaE2eProtocol = 'react' | 'native-tools';

/** The native tool-calling solver's system text (GTA has none of its own; no ask-user tool here). */
export const GTA_NATIVE_SYSTEM =
  'You are an assistant that can use tools. Call the tools you need, read their results, and when you know the answer, reply with it in plain text.';

export interface GtaE2eOptions {
  record: GtaRecord;
  /** The record's tools (only these are offered, in record order). */
  tools: readonly GtaToolMeta[];
  turn: TurnTaker;
  /** How calls run: the GTA catalog and the tool handlers (`gtaToolHandlers`). */
  dispatch: Omit<DispatchContext, 'signal'>;
  /** `react` (Lagent's text protocol, the official setting) or `native-tools` (provider tool calling). */
  protocol?: GtaE2eProtocol;
  maxTurn?: number;
  signal?: AbortSignal;
  /** The sample's event sink: the agent loop's trace. */
  trace?: AgentTraceSink;
  /** ReAct only: the grammar replies are generated under, given the tools (native tool calls: the provider's). */
  constraint?: GtaConstrainOption['constraint'];
}

export interface GtaE2eRun {
  /** The scored `prediction`: thought, action and tool steps in order. */
  predictions: PyObject[];
  /** The reference dialog after the user query. */
  golds: PyObject[];
  result: AgentResult;
}

/** `The related files are at `p1`, `p2`` (a user message in end-to-end mode, a system one in step mode). */
function gtaFilesHint(record: GtaRecord): string | undefined {
  if (!record.files.length) return undefined;
  return `The related files are at ${record.files.map((f) => `\`${f.path}\``).join(', ')}`;
}

const thoughtStep = (thought: string): PyObject =>
  pyObject([
    ['role', 'assistant'],
    ['content', thought],
    ['meta', pyObject([['type', 'thought']])],
  ]);

const toolStep = (content: PyJson): PyObject =>
  pyObject([
    ['role', 'tool'],
    ['content', content],
  ]);

/** A dispatch result as Lagent's result list: `{type, content}` per part (images by path). */
function resultList(parts: readonly ContentPart[]): PyJson {
  return parts.map((p) => {
    if (p.type === 'text') return toPyJson({ type: 'text', content: p.text });
    if (p.type === 'image' || p.type === 'file') return toPyJson({ type: p.type, content: p.path });
    return toPyJson({ type: 'text', content: contentToText([p]) });
  });
}

/** The action step and tool step of one call, given how it went. */
function actionSteps(o: Observation, known: ReadonlySet<string>, protocol: GtaE2eProtocol): PyObject[] {
  const { call, outcome } = o;
  const raw = call.rawInput ?? '';
  if (!known.has(call.tool)) {
    const msg = protocol === 'react' ? call.invalid || REACT_INVALID_ACTION_ERROR : outcome.ok ? '' : o.text;
    return [
      callStep(GTA_INVALID_ACTION, pyObject([['text', raw]]), { type: 'API_ERROR', msg }),
      toolStep(null),
    ];
  }
  const args: PyJson = call.args
    ? protocol === 'react'
      ? pyArgs(raw, call.args)
      : toPyJson(call.args)
    : raw;
  if (call.invalid || !call.args)
    return [
      callStep(call.tool, raw, { type: 'ARGS_ERROR', msg: call.invalid ?? 'no arguments' }),
      toolStep(null),
    ];
  if (!outcome.ok) {
    const type = outcome.error.code === 'INPUT_INVALID' ? 'ARGS_ERROR' : 'API_ERROR';
    return [callStep(call.tool, args, { type, msg: outcome.error.message }), toolStep(null)];
  }
  return [callStep(call.tool, args), toolStep(resultList(outcome.content))];
}

/**
 * Wraps a protocol so each decision is also written as GTA steps; the runtime still drives the
 * loop and the conversation the model sees is the wrapped protocol's own.
 */
function recordingProtocol(
  inner: AgentProtocol,
  kind: GtaE2eProtocol,
  known: ReadonlySet<string>,
  steps: PyObject[],
): AgentProtocol {
  const thought = (t: string | undefined) => {
    if (t) steps.push(thoughtStep(t));
  };
  return {
    ...inner,
    parse(reply, tools): Decision {
      let decision = inner.parse(reply, tools);
      // Lagent's executor holds FinishAction too: "Action:FinishAction" ends the run with its input
      const only = decision.kind === 'calls' && decision.calls.length === 1 ? decision.calls[0]! : undefined;
      if (kind === 'react' && only?.tool === GTA_FINISH_ACTION && !known.has(GTA_FINISH_ACTION))
        decision = {
          kind: 'final',
          answer: only.rawInput ?? '',
          ...(decision.kind === 'calls' && decision.thought !== undefined
            ? { thought: decision.thought }
            : {}),
        };
      if (decision.kind === 'final') {
        thought(decision.thought);
        steps.push(answerStep(decision.answer));
      }
      return decision;
    },
    continueWith(reply, decision, observations): ModelMessage[] {
      if (decision.kind === 'decode-failure') {
        thought(kind === 'react' ? parseReactReply(reply.text).thought : undefined);
        steps.push(
          callStep(GTA_NO_ACTION, pyObject([['text', '']]), {
            type: 'API_ERROR',
            msg: kind === 'react' ? REACT_NO_ACTION_ERROR : decision.message,
          }),
          toolStep(null),
        );
      } else if (decision.kind === 'calls') {
        thought(decision.thought);
        for (const o of observations) steps.push(...actionSteps(o, known, kind));
      }
      return inner.continueWith(reply, decision, observations);
    },
  };
}

/** Adds Lagent's force-stop system message to the prompt of the last allowed turn. */
function forceStopOnLastTurn(turn: TurnTaker, maxTurn: number): TurnTaker {
  let taken = 0;
  return (request, signal) => {
    taken++;
    if (taken < maxTurn) return turn(request, signal);
    return turn(
      { ...request, messages: [...request.messages, { role: 'system', content: REACT_FORCE_STOP }] },
      signal,
    );
  };
}

/** The record's tools as agent tools running through `dispatchCall` (a repeated name listed once). */
function gtaToolset(
  tools: readonly GtaToolMeta[],
  catalog: CatalogIndex,
  dispatch: Omit<DispatchContext, 'signal'>,
): Toolset {
  const unique = [...new Map(tools.map((t) => [t.name, t])).values()];
  return {
    tools: unique.map((meta): AgentTool => {
      const api = catalog.api(meta.name, meta.name);
      return { ...gtaAgentTool(meta), ...(api ? { inputSchema: apiInputJsonSchema(api) } : {}) };
    }),
    run: ({ id, tool, args }, signal) =>
      dispatchCall(
        { id, app: tool.app, api: tool.api, args },
        { ...dispatch, ...(signal ? { signal } : {}) },
      ),
  };
}

/** One record end to end: the agent loop over the real tools, recorded as GTA's prediction steps. */
export async function runGtaE2e(opts: GtaE2eOptions): Promise<GtaE2eRun> {
  const kind = opts.protocol ?? 'react';
  const maxTurn = opts.maxTurn ?? GTA_MAX_TURN;
  const toolset = gtaToolset(opts.tools, opts.dispatch.catalog, opts.dispatch);
  const known = new Set(toolset.tools.map((t) => t.name));
  const steps: PyObject[] = [];
  const inner =
    kind === 'react'
      ? reactProtocol(opts.constraint ? { constraint: opts.constraint } : {})
      : nativeToolsProtocol({ askUser: false, system: GTA_NATIVE_SYSTEM });
  const query = pyGet(opts.record.dialogs[0], 'content');
  const hint = gtaFilesHint(opts.record);
  const result = await runAgent({
    turn: kind === 'react' ? forceStopOnLastTurn(opts.turn, maxTurn) : opts.turn,
    protocol: recordingProtocol(inner, kind, known, steps),
    instruction: typeof query === 'string' ? query : '',
    toolset,
    history: hint ? [{ role: 'user', content: hint }] : [],
    // Lagent stops only at max_turn: no repair, decode or repeated-call limits
    budget: {
      maxSteps: maxTurn,
      maxRepairsPerTool: Number.MAX_SAFE_INTEGER,
      maxDecodeFailures: Number.MAX_SAFE_INTEGER,
      maxIdenticalCalls: Number.MAX_SAFE_INTEGER,
    },
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.trace ? { trace: opts.trace } : {}),
  });
  return { predictions: steps, golds: opts.record.dialogs.slice(1), result };
}

/** What the end-to-end solvers need from the loaded task: the model's turns and each sample's tools. */
export interface GtaE2eEnv {
  turns: TurnTaker;
  maxTurn: number;
  /** The sample's tools, how their calls run, and the folder their images go to. */
  toolsFor(sample: GtaSample): {
    tools: readonly GtaToolMeta[];
    dispatch: Omit<DispatchContext, 'signal'>;
    outputDir: string;
  };
}

/**
 * End to end as a solver: the agent loop over the sample's real tools with `protocol`, recorded as
 * GTA's prediction steps plus the answer, the stop reason and the turns taken.
 */
export function gtaE2eSolver(
  env: GtaE2eEnv,
  protocol: GtaE2eProtocol,
  opts: GtaConstrainOption = {},
): Solver<GtaSample, GtaOutput> {
  return async (state, ctx) => {
    const { tools, dispatch, outputDir } = env.toolsFor(state.sample);
    const run = await runGtaE2e({
      record: state.sample.record,
      tools,
      turn: env.turns,
      dispatch,
      protocol,
      maxTurn: env.maxTurn,
      ...(opts.constraint ? { constraint: opts.constraint } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.events ? { trace: ctx.events } : {}),
    });
    // an unreachable model is an infrastructure error of the sample, not a wrong prediction
    if (run.result.stopReason === 'model-error') throw run.result.error;
    if (run.result.stopReason === 'cancelled') throw ctx.signal?.reason ?? new Error('cancelled');
    return withOutput(state, {
      output: {
        mode: 'e2e',
        predictionJson: pyJsonDumps(run.predictions),
        answer: run.result.answer,
        stopReason: run.result.stopReason,
        turns: run.result.steps,
        artefacts: outputDir,
      },
      usage: { inputTokens: run.result.usage.inputTokens, outputTokens: run.result.usage.outputTokens },
      modelCalls: run.result.steps,
    });
  };
}
