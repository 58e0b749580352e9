import { generateText, type LanguageModel } from 'ai';
import type { Catalog } from '../../catalog/index.js';
import { fnv1a32 } from '../../shared/index.js';
import type { SampledCall, SampledPlan } from './plan-sampling.js';
import type { AppBenchRecord } from './record.js';

/**
 * A sampled plan as an AppBench record (docs/appbench.md, "Record format") and its instruction:
 * written by a model (checked to state every user-given value) or, without one, from a template.
 */

const literalText = (v: string | number | boolean) => String(v);

/** `out1, out2 = api(#a='v', #b=dep)`: arguments sorted, literals quoted, dependencies by output name. */
function callString(call: SampledCall): string {
  const args = Object.keys(call.args)
    .sort()
    .map((k) => {
      const a = call.args[k]!;
      return a.kind === 'ref' ? `#${k}=${a.output}` : `#${k}='${literalText(a.value)}'`;
    });
  return `${Object.keys(call.outputs).join(', ')} = ${call.api}(${args.join(', ')})`;
}

/** The values the user states: every literal argument (later calls override earlier ones, as upstream). */
function userAwareArguments(plan: SampledPlan): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of plan.calls)
    for (const [k, a] of Object.entries(c.args)) if (a.kind === 'literal') out[k] = literalText(a.value);
  return out;
}

export function planRecord(plan: SampledPlan, instruction: string): AppBenchRecord {
  const resultArguments = plan.calls.map((c) => Object.keys(c.outputs));
  return {
    input: instruction,
    output: {
      used_app: plan.calls.map((c) => c.app),
      used_api: plan.calls.map((c) => ({
        [c.api]: Object.fromEntries(
          Object.keys(c.args)
            .sort()
            .map((k) => [k, literalText(c.args[k]!.value)]),
        ),
      })),
      result_arguments: resultArguments,
      api_results: plan.calls.map(callString),
      middle_arguments: [...new Set(resultArguments.flat())],
      user_aware_arguments: userAwareArguments(plan),
    },
  };
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'];
const ordinal = (i: number) => ORDINALS[i] ?? `#${i + 1}`;

/** The instruction without a model: each call, its values and where its other inputs come from. */
function templatedInstruction(plan: SampledPlan, catalog: Catalog): string {
  const appName = (id: string) => catalog.apps.find((a) => a.id === id)?.name ?? id;
  const parts = plan.calls.map((c) => {
    const args = Object.entries(c.args).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const literals = args
      .filter(([, a]) => a.kind === 'literal')
      .map(([k, a]) => `${k} ${literalText(a.value)}`);
    const refs = args
      .filter(([, a]) => a.kind === 'ref')
      .map(([k, a]) => `${k} from the ${a.output} of the ${ordinal(a.from!)} call`);
    return `${appName(c.app)} ${c.api}${literals.length ? ` with ${literals.join(', ')}` : ''}${refs.length ? `${literals.length ? ',' : ''} taking ${refs.join(', ')}` : ''}`;
  });
  return `Call ${parts.join('; then ')}.`;
}

export const INSTRUCTION_SYSTEM_PROMPT = [
  'You write the instruction a user gives to an assistant that can call the APIs of apps.',
  'You are given the calls that carry the instruction out, in order: for each, its app, its API and what it does, the values the user gives, and the arguments that come from the results of earlier calls.',
  'Write one instruction of one or two sentences, as the user would say it, that asks for what these calls achieve together and states every value the user gives exactly as written.',
  'Do not state values that come from earlier results, and do not name APIs or parameters.',
  'Reply with the instruction only.',
].join(' ');

function instructionUserPrompt(
  plan: SampledPlan,
  catalog: Catalog,
  retry?: { instruction: string; missing: string[] },
): string {
  const lines = plan.calls.map((c, i) => {
    const api = catalog.apis.find((a) => a.app === c.app && a.name === c.api);
    const app = catalog.apps.find((a) => a.id === c.app);
    const given = Object.entries(c.args).filter(([, a]) => a.kind === 'literal');
    const derived = Object.entries(c.args).filter(([, a]) => a.kind === 'ref');
    return [
      `${i + 1}. ${app?.name ?? c.app}: ${c.api}: ${api?.description ?? ''}`.trimEnd(),
      `   the user gives: ${given.length ? given.map(([k, a]) => `${k} = ${literalText(a.value)}`).join('; ') : '(nothing)'}`,
      ...(derived.length
        ? [
            `   from earlier results: ${derived.map(([k, a]) => `${k} = the ${a.output} of call ${a.from! + 1}`).join('; ')}`,
          ]
        : []),
    ].join('\n');
  });
  const text = `Calls:\n${lines.join('\n')}`;
  return retry
    ? `${text}\n\nYour previous instruction was: ${retry.instruction}\nIt does not state: ${retry.missing.join(', ')}\nWrite a new instruction that states every value the user gives.`
    : text;
}

/** The user-given values an instruction does not contain (case-insensitive; a true/false is not looked for). */
function missingValues(instruction: string, plan: SampledPlan): string[] {
  const text = instruction.toLowerCase();
  return Object.values(userAwareArguments(plan)).filter(
    (v) => v !== 'true' && v !== 'false' && !text.includes(v.toLowerCase()),
  );
}

export interface InstructionOutcome {
  source: 'model' | 'templated';
  instruction?: string;
  /** Each model attempt and the values it missed. */
  attempts: Array<{ instruction: string; missing: string[] }>;
}

/** The instruction of one plan: the model's (retried while a value is missing), else the template. */
export async function planInstruction(
  plan: SampledPlan,
  key: number,
  opts: { catalog: Catalog; model?: LanguageModel; seed: number; retries: number; signal?: AbortSignal },
): Promise<InstructionOutcome> {
  if (!opts.model) {
    const instruction = templatedInstruction(plan, opts.catalog);
    return { source: 'templated', instruction, attempts: [] };
  }
  const attempts: InstructionOutcome['attempts'] = [];
  for (let attempt = 0; attempt <= opts.retries; attempt++) {
    const last = attempts.at(-1);
    const reply = await generateText({
      model: opts.model,
      system: INSTRUCTION_SYSTEM_PROMPT,
      prompt: instructionUserPrompt(
        plan,
        opts.catalog,
        last && { instruction: last.instruction, missing: last.missing },
      ),
      temperature: 0.7,
      seed: fnv1a32(`${opts.seed}:${key}:${attempt}`),
      abortSignal: opts.signal,
    });
    const instruction = reply.text.replace(/\s*\n\s*/g, ' ').trim();
    const missing = instruction ? missingValues(instruction, plan) : ['(empty reply)'];
    attempts.push({ instruction, missing });
    if (!missing.length) return { source: 'model', instruction, attempts };
  }
  return { source: 'model', attempts };
}
