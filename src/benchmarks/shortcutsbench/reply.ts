import { type Json, parseJson } from './json-value.js';

/** One `bseqs` entry produced by the agent (docs/shortcutsbench.md §8.1, §8.5). */
export type AgentBSeq =
  | { state: 'generated_by_agent'; aseq: Json }
  | { state: 'json_error'; aseq: string | null };

function tryParse(text: string): { ok: true; value: Json } | { ok: false } {
  try {
    return { ok: true, value: parseJson(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * The official reply parsing with Python's number types kept (docs/shortcutsbench.md, "Official
 * reply parsing"): the text from the first `{` to the last `}`, else the whole reply, else a JSON
 * error carrying the raw reply. Never throws.
 */
export function parseShortcutsReply(reply: string): AgentBSeq {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start >= 0 && end > start) {
    const inner = tryParse(reply.slice(start, end + 1));
    if (inner.ok) return { state: 'generated_by_agent', aseq: inner.value };
  }
  const whole = tryParse(reply);
  return whole.ok ? { state: 'generated_by_agent', aseq: whole.value } : { state: 'json_error', aseq: reply };
}
