import { generateText, type LanguageModel } from 'ai';
import type { AppBenchRecord } from '../record.js';
import type { SgdSourceDialogue } from './sgd-source.js';

/**
 * The MetaBench paper's instruction prompt (Table 6), verbatim; `{user_aware_arguments}` becomes the
 * JSON object of the literals of the path. The dialogue follows as the user message.
 */
export const INSTRUCTION_PROMPT =
  'Your task is to generate a complex instruction in one sentence which exactly reflect what user want to do during the dialogue with the dialogue system as follows.\n\n' +
  'Please give all specific values of user requirements in user aware arguments {user_aware_arguments}.\n\n' +
  'You should not know any values of other arguments specified by the system side.';

/** The paper's quality prompt (Table 7), verbatim; the instruction follows as the user message. */
export const QUALITY_PROMPT = `Please evaluate the given instruction based on the following criteria:

Fluency:

- Evaluate the prompt's clarity, coherence, and ease of understanding.
- Consider factors such as the organization, language flow, and presentation of the prompt.

Diversity:

 Evaluate the range of topics, perspectives, and related APP and APIs covered by the prompt.

Please only output the overall score considering both of fluency and diversity. The overall score should be a value between 1 and 10, with 10 representing the best.`;

/** The dialogue(s) as the model reads them: `USER: …` / `SYSTEM: …`, a blank line between dialogues. */
function dialogueText(dialogues: readonly SgdSourceDialogue[]): string {
  return dialogues.map((d) => d.turns.map((t) => `${t.speaker}: ${t.utterance}`).join('\n')).join('\n\n');
}

function instructionPrompt(userAware: AppBenchRecord['output']['user_aware_arguments']): string {
  return INSTRUCTION_PROMPT.replace('{user_aware_arguments}', JSON.stringify(userAware));
}

/** The sentence of a reply: trimmed, without a leading "Instruction:" or surrounding quotes. */
export function cleanInstruction(reply: string): string {
  return reply
    .trim()
    .replace(/^instruction\s*:\s*/i, '')
    .replace(/^"(.*)"$/s, '$1')
    .trim();
}

/** The overall score of a Table 7 reply: its first number, when it lies in [1, 10]. */
export function parseQualityScore(reply: string): number | undefined {
  const m = /\d+(\.\d+)?/.exec(reply);
  if (!m) return undefined;
  const n = Number(m[0]);
  return n >= 1 && n <= 10 ? n : undefined;
}

export interface InstructionModel {
  model: LanguageModel;
  signal?: AbortSignal;
}

/** Table 6 through the model (temperature 0: the build is reproducible on a deterministic endpoint). */
export async function writeInstruction(
  dialogues: readonly SgdSourceDialogue[],
  record: AppBenchRecord,
  m: InstructionModel,
): Promise<string> {
  const r = await generateText({
    model: m.model,
    system: instructionPrompt(record.output.user_aware_arguments),
    prompt: dialogueText(dialogues),
    temperature: 0,
    abortSignal: m.signal,
  });
  return cleanInstruction(r.text);
}

/** Table 7 through the model: the score, or undefined when the reply holds none in [1, 10]. */
export async function scoreInstruction(
  instruction: string,
  m: InstructionModel,
): Promise<{ score: number | undefined; reply: string }> {
  const r = await generateText({
    model: m.model,
    system: QUALITY_PROMPT,
    prompt: instruction,
    temperature: 0,
    abortSignal: m.signal,
  });
  return { score: parseQualityScore(r.text), reply: r.text };
}

/**
 * The instruction written without a model: every call with its user-aware values, e.g.
 * "Rents getcarsavailable with city Warsaw, start date 2019-03-07; then Rents reservecar with
 * add insurance True." Marked `templated` in the manifest: it is a description of the plan, not a
 * user's request.
 */
export function templatedInstruction(record: AppBenchRecord): string {
  const parts = record.output.used_api.map((call, i) => {
    const [api, args] = Object.entries(call)[0]!;
    const literals = Object.entries(args).filter(([k]) =>
      new RegExp(`#${k}='`).test(record.output.api_results[i] ?? ''),
    );
    const said = literals.map(([k, v]) => `${k.replace(/_/g, ' ')} ${String(v)}`).join(', ');
    return `${record.output.used_app[i]} ${api}${said ? ` with ${said}` : ''}`;
  });
  return `${parts.join('; then ')}.`;
}
