import { reactSystemPrompt } from '../../agents/index.js';
import { type PyJson, type PyObject, pyGet, pyJsonDumps } from '../../shared/index.js';
import type { GtaFile, GtaRecord } from './dataset.js';
import { pyStr, pyTruthy } from './py-value.js';
import { type GtaToolMeta, gtaAgentTool } from './toolmeta.js';

/**
 * The prompts of GTA's step-by-step mode (`every_with_gt`; docs/gta.md, "Official step-by-step mode:
 * prompts"), character for
 * character: for each gold assistant message, the gold prefix rendered as the official
 * `react_style_history` does, after the ReAct call-protocol system prompt.
 */

export const GTA_SUMMARIZE_PROMPT =
  'Please summarize the chat history and give a final answer. Do not call any tools.';

export type GtaPromptMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/** Lagent `ActionReturn.format_result` of one result item: text as is, others `[type](content)`. */
function formatToolResult(item: PyJson): string {
  const type = pyGet(item, 'type');
  const content = pyGet(item, 'content') ?? null;
  if (type === 'text') {
    if (typeof content !== 'string') throw new TypeError('a text result must hold a string');
    return content;
  }
  return `[${pyStr(type ?? null)}](${pyStr(content)})`;
}

/** `react_style_history`: files sentence (system), user turns, gold calls without thoughts, tool returns (system). */
function reactStyleHistory(history: readonly PyObject[], files: readonly GtaFile[]): GtaPromptMessage[] {
  const out: GtaPromptMessage[] = [];
  if (files.length)
    out.push({
      role: 'system',
      content: `The related files are at ${files.map((f) => `\`${f.path}\``).join(', ')}`,
    });
  for (const step of history) {
    const role = pyGet(step, 'role');
    const content = pyGet(step, 'content');
    const calls = pyGet(step, 'tool_calls');
    if (role === 'user') out.push({ role: 'user', content: content as string });
    else if (role === 'assistant' && pyTruthy(calls)) {
      const fn = pyGet((calls as PyJson[])[0], 'function');
      const name = pyStr(pyGet(fn, 'name') ?? null);
      const args = pyJsonDumps(pyGet(fn, 'arguments') ?? null);
      out.push({ role: 'assistant', content: `Action:${name}\nAction Input:${args}` });
    } else if (role === 'tool' && pyTruthy(content))
      out.push({ role: 'system', content: formatToolResult(content as PyJson) });
    else if (role === 'assistant' && pyTruthy(content))
      out.push({ role: 'assistant', content: content as string });
  }
  return out;
}

export interface GtaStepPrompt {
  /** Index of the gold assistant message in the record's dialogs. */
  dialogIndex: number;
  /** The gold message the model's step is compared with. */
  gold: PyObject;
  /** The call-protocol system prompt (first message). */
  system: string;
  /** The rendered history after the system prompt. */
  messages: GtaPromptMessage[];
}

/** One prompt per gold assistant message; the last one ends with the "Please summarize…" user turn. */
export function gtaStepPrompts(record: GtaRecord, tools: readonly GtaToolMeta[]): GtaStepPrompt[] {
  // Lagent's ActionExecutor keys tools by name: a repeated name is listed once, at its first place
  const unique = [...new Map(tools.map((t) => [t.name, t])).values()];
  const system = reactSystemPrompt(unique.map(gtaAgentTool));
  const assistant = record.dialogs.flatMap((m, i) => (pyGet(m, 'role') === 'assistant' ? [i] : []));
  return assistant.map((i) => {
    const history: PyObject[] = record.dialogs.slice(0, i);
    if (i === assistant.at(-1))
      history.push({
        kind: 'object',
        entries: new Map<string, PyJson>([
          ['role', 'user'],
          ['content', GTA_SUMMARIZE_PROMPT],
        ]),
      });
    return {
      dialogIndex: i,
      gold: record.dialogs[i]!,
      system,
      messages: reactStyleHistory(history, record.files),
    };
  });
}
