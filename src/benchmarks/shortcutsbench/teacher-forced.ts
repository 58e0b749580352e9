import { type AgentTraceSink, jsonActionProtocol, runAgent, type TurnTaker } from '../../agents/index.js';
import { addUsage, type OutputConstraint, type TokenUsage, ZERO_USAGE } from '../../models/index.js';
import { type Solver, withOutput } from '../../tasks/index.js';
import { actionClass } from './actions.js';
import { type CandidateApis, candidateApis, candidateSeed } from './candidates.js';
import { dumpsPythonJson, type Json, type JsonObject, LosslessNumber } from './json-value.js';
import { actionParts } from './length.js';
import { normaliseAction, renameControlFlow, returnValueNames } from './normalise.js';
import { NO_DESCRIPTION, shortcutsSystemPrompt, shortcutsUserPrompt } from './prompts.js';
import type { ShortcutSample } from './register.js';
import { type AgentBSeq, parseShortcutsReply } from './reply.js';

/** What every shortcut of a run shares: the API files (docs/shortcutsbench.md §4.1, §4.2). */
export interface ShortcutsApis {
  /** all_api2info: id → description (also the distractor pool). */
  info: ReadonlyMap<string, string>;
  /** all_api2paraname2paratype: id → param name → type string. */
  paraTypes: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Default output names (`ThisIsReturnValue:` keys). */
  defaultOutputs: ReadonlyMap<string, string>;
}

/** One shortcut to solve: its URL, query and raw gold actions (never mutated). */
export interface ShortcutToSolve {
  url: string;
  query: string;
  actions: readonly Json[];
}

/** What a step-taker sees for one evaluated gold action. */
export interface ShortcutStep {
  /** 0-based index of the action in `WFWorkflowActions`. */
  position: number;
  query: string;
  system: string;
  user: string;
  /** The gold history as shown (normalised, docs/shortcutsbench.md §8.3/§8.4). */
  history: readonly JsonObject[];
  candidates: CandidateApis;
}

/** A step's reply; `endShortcut` when the provider refused (context length, safety): upstream stops there. */
export type StepReply = { text: string; usage: TokenUsage } | { endShortcut: string; usage: TokenUsage };

/**
 * Who answers a step: a model (`modelStepper`) or a no-model policy (the baseline). A model
 * stepper writes its turn to `events` (numbered as the step).
 */
export type ShortcutStepper = (
  step: ShortcutStep,
  signal?: AbortSignal,
  events?: AgentTraceSink,
) => Promise<StepReply>;

export interface ShortcutTraceStep {
  position: number;
  state: AgentBSeq['state'];
  reply: string;
}

/** The solver's output for one shortcut: the official result line plus our trace. */
export interface ShortcutRun {
  /**
   * The official result record as the runner writes it (`json.dumps`, one line, docs/shortcutsbench.md §8.1).
   */
  resultLine: string;
  modelCalls: number;
  usage: TokenUsage;
  /** Why generation stopped early (the record's `aseqs` are then cut to its `bseqs`), else null. */
  endedEarly: string | null;
  trace: ShortcutTraceStep[];
}

const num = (n: number) => new LosslessNumber(String(n));

/**
 * The teacher-forced loop of docs/shortcutsbench.md §8.1: FILTER actions are copied and kept out of the
 * history, IGNORE actions are copied and shown (control flow renamed), every other action is one step whose
 * reply is parsed as the official runner does (docs/shortcutsbench.md, "Official reply parsing"); the history
 * always gets the GOLD action.
 */
export async function solveShortcut(
  shortcut: ShortcutToSolve,
  apis: ShortcutsApis,
  runSeed: number,
  step: ShortcutStepper,
  signal?: AbortSignal,
  events?: AgentTraceSink,
): Promise<ShortcutRun> {
  const { actions } = shortcut;
  const allIds = [...apis.info.keys()];
  const candidates = candidateApis(actions, allIds, candidateSeed(runSeed, shortcut.url));
  const descriptionOf = (id: string) => apis.info.get(id) ?? NO_DESCRIPTION;
  const system = shortcutsSystemPrompt(
    candidates.promptOrder.map((id) => ({ id, description: descriptionOf(id) })),
  );
  const returnNames = returnValueNames(actions, new Set(Object.keys(apis.paraTypes)), apis.defaultOutputs);

  const history: JsonObject[] = [];
  const bseqs: Json[] = [];
  const trace: ShortcutTraceStep[] = [];
  let usage: TokenUsage = ZERO_USAGE;
  let modelCalls = 0;
  let endedEarly: string | null = null;
  const t0 = performance.now();
  let stepNo = 0;
  for (let position = 0; position < actions.length; position++) {
    const gold = actions[position]!;
    const { id } = actionParts(gold);
    const cls = actionClass(id ?? '');
    if (cls === 'filter') {
      bseqs.push({ state: 'copy_from_true', aseq: gold });
      continue;
    }
    const shown = normaliseAction(gold, returnNames);
    if (cls === 'ignore') {
      history.push(renameControlFlow(shown));
      bseqs.push({ state: 'copy_from_true', aseq: gold });
      continue;
    }
    const user = shortcutsUserPrompt(shortcut.query, history);
    const n = ++stepNo;
    const reply = await step(
      { position, query: shortcut.query, system, user, history: [...history], candidates },
      signal,
      events && { write: (e) => events.write({ ...e, step: n }) },
    );
    usage = addUsage(usage, reply.usage);
    if ('endShortcut' in reply) {
      endedEarly = reply.endShortcut;
      break;
    }
    modelCalls++;
    const parsed = parseShortcutsReply(reply.text);
    bseqs.push(parsed);
    trace.push({ position, state: parsed.state, reply: reply.text });
    history.push(shown);
    if (events) writeStepEvents(events, n, parsed, shown);
  }
  events?.write({
    type: 'stop',
    step: stepNo,
    reason: endedEarly === null ? 'final' : 'model-error',
    answer: null,
    ...(endedEarly !== null ? { detail: endedEarly } : {}),
    usage,
    totalMs: performance.now() - t0,
  });

  const record: JsonObject = {
    URL: shortcut.url,
    query: shortcut.query,
    api_names: candidates.apiNames,
    api_descs: Object.fromEntries(candidates.promptOrder.map((id) => [id, descriptionOf(id)])),
    aseqs: actions.slice(0, bseqs.length) as Json[],
    bseqs,
    seed: num(candidates.seed),
    input_tokens: num(usage.inputTokens),
    output_tokens: num(usage.outputTokens),
  };
  return { resultLine: dumpsPythonJson(record), modelCalls, usage, endedEarly, trace };
}

/**
 * A step's events beyond the model turn: the action it proposes (never run: scored against the
 * gold) and, teacher-forced, the gold action the next step sees in its history.
 */
function writeStepEvents(events: AgentTraceSink, step: number, parsed: AgentBSeq, gold: JsonObject): void {
  if (parsed.state === 'generated_by_agent' && parsed.aseq !== null && typeof parsed.aseq === 'object') {
    const action = parsed.aseq as JsonObject;
    const id = action.WFWorkflowActionIdentifier;
    events.write({
      type: 'proposal',
      step,
      id: `step-${step}`,
      tool: typeof id === 'string' ? id : '',
      args: dumpsPythonJson(action.WFWorkflowActionParameters ?? null),
    });
  }
  events.write({ type: 'observation', step, text: dumpsPythonJson(gold) });
}

const REFUSAL =
  /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|content[_ ]filter|content management policy|safety system|flagged/i;

/** A provider error that upstream treats as the end of the shortcut (context length, safety filter). */
export function isContextOrSafetyError(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const parts = [(e as { message?: unknown }).message, (e as { responseBody?: unknown }).responseBody];
    if (parts.some((p) => typeof p === 'string' && REFUSAL.test(p))) return true;
  }
  return false;
}

/**
 * A model as the step-taker: one `runAgent` turn (`jsonActionProtocol`, `maxSteps: 1`, no repair
 * turn). The reply text is parsed by the caller with the lossless reply parser
 * (docs/shortcutsbench.md, "Official reply parsing"), because the protocol's own parse uses
 * `JSON.parse`, which loses the int/float distinction the scorer needs.
 * Context-length and safety errors end the shortcut; any other model error is rethrown.
 * `constraint`: the grammar each step's reply is generated under (none by default).
 */
export function modelStepper(
  turn: TurnTaker,
  opts: { constraint?: (step: ShortcutStep) => OutputConstraint | undefined } = {},
): ShortcutStepper {
  return async (step, signal, events) => {
    const constraint = opts.constraint?.(step);
    const result = await runAgent({
      turn,
      protocol: jsonActionProtocol({ system: step.system, ...(constraint ? { constraint } : {}) }),
      instruction: step.user,
      budget: { maxSteps: 1, maxDecodeFailures: 0 },
      ...(signal ? { signal } : {}),
      // only the turn: the loop's refusal of the (never run) action and its stop are not the step's
      ...(events ? { trace: { write: (e) => void (e.type === 'turn' ? events.write(e) : undefined) } } : {}),
    });
    if (result.stopReason === 'model-error') {
      if (isContextOrSafetyError(result.error))
        return { endShortcut: result.detail ?? 'provider refused the prompt', usage: result.usage };
      throw result.error;
    }
    if (result.stopReason === 'cancelled') throw new DOMException('cancelled', 'AbortError');
    return { text: result.lastText, usage: result.usage };
  };
}

/**
 * The teacher-forced loop as a solver: `stepper` answers every evaluated gold action of the sample
 * (seeded by the run seed). `countModelCalls: false` for a no-model stepper (the baseline records 0).
 */
export function teacherForcedSolver(
  apis: ShortcutsApis,
  stepper: ShortcutStepper,
  opts: { countModelCalls: boolean },
): Solver<ShortcutSample, ShortcutRun> {
  return async (state, ctx) => {
    const { sample } = state;
    const run = await solveShortcut(
      { url: sample.id, query: sample.query, actions: sample.actions },
      apis,
      ctx.seed,
      stepper,
      ctx.signal,
      ctx.events,
    );
    return withOutput(state, {
      output: run,
      usage: run.usage,
      modelCalls: opts.countModelCalls ? run.modelCalls : 0,
    });
  };
}
