import type { LanguageModelV3 } from '../sampling.js';

type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
export type LocalPrompt = CallOptions['prompt'];
type PromptMessage = LocalPrompt[number];

/** A function tool as the AI SDK offers it to a provider. */
export interface OfferedTool {
  name: string;
  description?: string;
  inputSchema: unknown;
}

/** One turn of the conversation as the chat template sees it (node-llama-cpp's chat history shape). */
export type ChatTurn =
  | { type: 'system'; text: string }
  | { type: 'user'; text: string }
  | { type: 'model'; response: string[] };

/**
 * The text of a tool call as a constrained model writes it: `{"tool": name, "arguments": {...}}`.
 * Earlier calls are shown the same way, so the conversation teaches the format the grammar allows.
 */
export function toolCallText(name: string, input: unknown): string {
  return JSON.stringify({ tool: name, arguments: input });
}

/**
 * What the system message adds when tools are offered: each tool with its JSON Schema, and the one
 * JSON object to answer with (a call, or — unless a call is required — a final answer).
 */
export function toolInstructions(tools: readonly OfferedTool[], allowFinalAnswer: boolean): string {
  const lines = tools.map(
    (t) =>
      `- ${t.name}${t.description ? `: ${t.description}` : ''}\n  arguments (JSON Schema): ${JSON.stringify(t.inputSchema)}`,
  );
  return [
    'You can call these tools:',
    ...lines,
    'Answer with exactly one JSON object and nothing else:',
    '{"tool": "<tool name>", "arguments": {<arguments>}} to call a tool',
    ...(allowFinalAnswer ? ['{"final_answer": "<your answer>"} when you have the answer'] : []),
  ].join('\n');
}

function outputText(output: unknown): string {
  const o = output as { type: string; value?: unknown; reason?: string };
  switch (o.type) {
    case 'text':
    case 'error-text':
      return String(o.value);
    case 'json':
    case 'error-json':
      return JSON.stringify(o.value);
    case 'execution-denied':
      return `denied${o.reason ? `: ${o.reason}` : ''}`;
    case 'content':
      return (o.value as Array<{ type: string; text?: string }>)
        .map((p) => (p.type === 'text' ? p.text : `[${p.type}]`))
        .join('\n');
    default:
      return JSON.stringify(output);
  }
}

function messageTurn(message: PromptMessage): ChatTurn | undefined {
  switch (message.role) {
    case 'system':
      return { type: 'system', text: message.content };
    case 'user':
      return {
        type: 'user',
        text: message.content.map((p) => (p.type === 'text' ? p.text : `[${p.mediaType} file]`)).join('\n'),
      };
    case 'assistant': {
      const response: string[] = [];
      for (const part of message.content) {
        if (part.type === 'text' && part.text) response.push(part.text);
        else if (part.type === 'tool-call') response.push(toolCallText(part.toolName, part.input));
      }
      return { type: 'model', response };
    }
    case 'tool': {
      const results = message.content.filter((p) => p.type === 'tool-result');
      if (!results.length) return undefined;
      return {
        type: 'user',
        text: results.map((r) => `Result of ${r.toolName}: ${outputText(r.output)}`).join('\n'),
      };
    }
  }
}

/**
 * The AI SDK prompt as chat turns: system messages first (with the tool instructions), user text,
 * the assistant's earlier answers and calls, tool results as user turns; consecutive turns of one
 * kind are merged (chat templates expect them to alternate). Ends with an empty model turn: the
 * one the model writes.
 */
export function chatTurns(prompt: LocalPrompt, instructions?: string): ChatTurn[] {
  const turns: ChatTurn[] = [];
  const push = (turn: ChatTurn) => {
    const last = turns[turns.length - 1];
    if (last?.type === 'system' && turn.type === 'system') last.text += `\n\n${turn.text}`;
    else if (last?.type === 'user' && turn.type === 'user') last.text += `\n\n${turn.text}`;
    else if (last?.type === 'model' && turn.type === 'model') last.response.push(...turn.response);
    else turns.push(turn);
  };
  const systems = prompt.filter((m) => m.role === 'system');
  const system = [...systems.map((m) => m.content), ...(instructions ? [instructions] : [])].join('\n\n');
  if (system) push({ type: 'system', text: system });
  for (const message of prompt) {
    if (message.role === 'system') continue;
    const turn = messageTurn(message);
    if (turn) push(turn);
  }
  push({ type: 'model', response: [] });
  return turns;
}

/** The plain fallback when the model has no usable chat template: role lines, then `Assistant:`. */
export function plainPromptText(turns: readonly ChatTurn[]): string {
  const lines = turns.map((t) =>
    t.type === 'system'
      ? `System: ${t.text}`
      : t.type === 'user'
        ? `User: ${t.text}`
        : `Assistant: ${t.response.join('\n')}`,
  );
  return `${lines.join('\n\n')}`;
}
