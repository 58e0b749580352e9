import { generateText, type LanguageModel } from 'ai';

/** Instruction given to the paraphrasing model (system message); the user message is the request. */
export const PARAPHRASE_SYSTEM_PROMPT = [
  'Rewrite the user request you are given in different words.',
  'Keep its meaning and everything it asks for, and keep every name, place, number, date and time exactly as written.',
  'Add nothing. Reply with the rewritten request only, on one line.',
].join(' ');

export interface ParaphraseOptions {
  model: LanguageModel;
  /** Sampling temperature (default 0.7: a paraphrase should differ from the input). */
  temperature?: number;
  /** Retries of a failed call inside the AI SDK (default 2). */
  maxRetries?: number;
  signal?: AbortSignal;
}

export interface ParaphraseResult {
  /** The text to train on: the paraphrase when accepted, else the original instruction. */
  text: string;
  status: 'ok' | 'rejected' | 'failed';
  /** Why a paraphrase was rejected or failed. */
  reason?: string;
}

/** Trims the reply, drops one pair of surrounding quotes and joins lines. */
export function cleanParaphrase(reply: string): string {
  let t = reply.replace(/\s*\n\s*/g, ' ').trim();
  const m = /^(["'“])(.*)(["'”])$/.exec(t);
  if (m && m[2]!.length > 0 && !m[2]!.includes(m[1]!)) t = m[2]!.trim();
  return t;
}

/**
 * Checks a paraphrase keeps the plan answerable: every value in `mustKeep` that the original
 * instruction contains (case-insensitive) must still occur in it. Returns the first value lost.
 */
export function lostValue(
  original: string,
  paraphrase: string,
  mustKeep: readonly string[],
): string | undefined {
  const o = original.toLowerCase();
  const p = paraphrase.toLowerCase();
  return mustKeep.find((v) => v.trim() !== '' && o.includes(v.toLowerCase()) && !p.includes(v.toLowerCase()));
}

/**
 * Paraphrases one instruction with a language model (AI SDK `generateText`). A failed call or
 * an unusable reply (empty, identical, or losing a value of `mustKeep` that the instruction
 * states verbatim) keeps the original instruction and says why.
 */
export async function paraphraseInstruction(
  instruction: string,
  mustKeep: readonly string[],
  opts: ParaphraseOptions,
): Promise<ParaphraseResult> {
  let reply: string;
  try {
    const result = await generateText({
      model: opts.model,
      system: PARAPHRASE_SYSTEM_PROMPT,
      prompt: instruction,
      temperature: opts.temperature ?? 0.7,
      maxRetries: opts.maxRetries ?? 2,
      abortSignal: opts.signal,
    });
    reply = result.text;
  } catch (error) {
    return { text: instruction, status: 'failed', reason: (error as Error).message ?? String(error) };
  }
  const text = cleanParaphrase(reply);
  if (!text) return { text: instruction, status: 'rejected', reason: 'empty reply' };
  if (text === instruction.trim())
    return { text: instruction, status: 'rejected', reason: 'same as the original' };
  const lost = lostValue(instruction, text, mustKeep);
  if (lost !== undefined)
    return { text: instruction, status: 'rejected', reason: `lost the value "${lost}"` };
  return { text, status: 'ok' };
}
