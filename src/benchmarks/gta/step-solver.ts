import { type AgentTool, type AgentTraceSink, parseReactReply, type TurnTaker } from '../../agents/index.js';
import { addUsage, type OutputConstraint, type TokenUsage, ZERO_USAGE } from '../../models/index.js';
import { pyJsonDumps } from '../../shared/index.js';
import { type Solver, withOutput } from '../../tasks/index.js';
import type { GtaDataset } from './dataset.js';
import type { GtaStepPredictionRecord } from './predictions.js';
import type { GtaConstrainOption } from './react-grammar.js';
import type { GtaOutput, GtaSample } from './register.js';
import { gtaStepFromReply } from './step-execute.js';
import { gtaStepPrompts } from './step-prompt.js';
import { type GtaToolMeta, gtaAgentTool, recordTools } from './toolmeta.js';

/**
 * Step-by-step mode on the agent runtime's `TurnTaker`: one model turn per gold assistant message,
 * parsed and executed with the ReAct functions directly. `runAgent` does not fit one-step scoring:
 * its protocol start appends an instruction user turn, while the official prompt ends with the gold
 * prefix (often a tool return as a system message), and the step record needs the raw input and
 * Python-exact arguments, which the loop's call records do not keep.
 */
export async function runGtaStepMode(
  dataset: GtaDataset,
  toolmeta: ReadonlyMap<string, GtaToolMeta>,
  turns: TurnTaker,
  options: {
    file?: string;
    signal?: AbortSignal;
    events?: AgentTraceSink;
    /** The grammar each step's reply is generated under, given the record's tools. */
    constraint?: (tools: readonly AgentTool[]) => OutputConstraint | undefined;
  } = {},
): Promise<Array<GtaStepPredictionRecord & { usage: TokenUsage }>> {
  const out: Array<GtaStepPredictionRecord & { usage: TokenUsage }> = [];
  for (const record of dataset.records) {
    const tools = recordTools(record.tools, toolmeta, {
      file: options.file ?? 'dataset.json',
      record: record.key,
    });
    const prompts = gtaStepPrompts(record, tools);
    const constraint = options.constraint?.(tools.map(gtaAgentTool));
    const predictions = [];
    const { events } = options;
    const t0 = performance.now();
    let usage: TokenUsage = ZERO_USAGE;
    let step = 0;
    for (const prompt of prompts) {
      const reply = await turns(
        { system: prompt.system, messages: prompt.messages, ...(constraint ? { constraint } : {}) },
        options.signal,
      );
      predictions.push(gtaStepFromReply(reply.text, tools));
      step++;
      usage = addUsage(usage, reply.usage);
      // each step sees its own gold prefix: the whole prompt is sent again, proposals are never run
      if (events) {
        const parsed = parseReactReply(reply.text);
        events.write({
          type: 'turn',
          step,
          sent: { system: prompt.system, messages: prompt.messages },
          reply: { text: reply.text, toolCalls: [] },
          decision:
            parsed.kind === 'finish' ? 'final' : parsed.kind === 'action' ? 'calls' : 'decode-failure',
          usage: reply.usage,
          latencyMs: reply.latencyMs,
          ...(reply.attempts !== undefined ? { attempts: reply.attempts } : {}),
          ...(reply.faults?.length ? { faults: reply.faults } : {}),
        });
        if (parsed.kind === 'action')
          events.write({ type: 'proposal', step, id: `step-${step}`, tool: parsed.name, args: parsed.input });
      }
    }
    events?.write({
      type: 'stop',
      step,
      reason: 'final',
      answer: null,
      usage,
      totalMs: performance.now() - t0,
    });
    out.push({
      key: record.key,
      predictions,
      golds: prompts.map((p) => p.gold),
      prompts: prompts.map((p) => [{ role: 'system', content: p.system }, ...p.messages]),
      usage,
    });
  }
  return out;
}

/** What step mode needs from the loaded task: the data folder, its toolmeta, the model's turns. */
export interface GtaStepModeEnv {
  root: string;
  toolmeta: ReadonlyMap<string, GtaToolMeta>;
  turns: TurnTaker;
  /** The dataset file, named in errors. */
  file: string;
}

/**
 * Step mode as a solver: one model turn per gold assistant message of the sample, recorded as the
 * predicted steps (Python `json.dumps` text); one model call per step, their tokens summed (what
 * `--max-cost` and the cost columns read).
 */
export function gtaStepModeSolver(
  env: GtaStepModeEnv,
  opts: GtaConstrainOption = {},
): Solver<GtaSample, GtaOutput> {
  return async (state, ctx) => {
    const [run] = await runGtaStepMode(
      { root: env.root, records: [state.sample.record] },
      env.toolmeta,
      env.turns,
      {
        file: env.file,
        ...(opts.constraint ? { constraint: opts.constraint } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.events ? { events: ctx.events } : {}),
      },
    );
    return withOutput(state, {
      output: { mode: 'step', predictionJson: pyJsonDumps(run!.predictions) },
      usage: run!.usage,
      modelCalls: run!.predictions.length,
    });
  };
}
