import { z } from 'zod';

/** The OpenAI chat fine-tuning line: `{"messages":[{role, content}, …]}`. */
export const OpenAiChatLineSchema = z.object({
  messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() })).min(2),
});
type OpenAiChatLine = z.infer<typeof OpenAiChatLineSchema>;

/** The ShareGPT line: `{"conversations":[{from, value}, …]}` (system / human / gpt). */
export const ShareGptLineSchema = z.object({
  conversations: z.array(z.object({ from: z.enum(['system', 'human', 'gpt']), value: z.string() })).min(2),
});
type ShareGptLine = z.infer<typeof ShareGptLineSchema>;

export const SFT_FORMATS = ['openai', 'sharegpt'] as const;
export type SftFormat = (typeof SFT_FORMATS)[number];

/** One training conversation: system prompt, user instruction, assistant plan reply. */
export interface SftChat {
  system: string;
  user: string;
  assistant: string;
}

function toOpenAiChatLine(chat: SftChat): OpenAiChatLine {
  return {
    messages: [
      { role: 'system', content: chat.system },
      { role: 'user', content: chat.user },
      { role: 'assistant', content: chat.assistant },
    ],
  };
}

function toShareGptLine(chat: SftChat): ShareGptLine {
  return {
    conversations: [
      { from: 'system', value: chat.system },
      { from: 'human', value: chat.user },
      { from: 'gpt', value: chat.assistant },
    ],
  };
}

/** One JSON line (no trailing newline) in the given format. */
export function formatSftLine(chat: SftChat, format: SftFormat): string {
  return JSON.stringify(format === 'openai' ? toOpenAiChatLine(chat) : toShareGptLine(chat));
}

/** A whole JSONL file: one line per chat, each ending with a newline. */
export function formatSftJsonl(chats: readonly SftChat[], format: SftFormat): string {
  return chats.map((c) => `${formatSftLine(c, format)}\n`).join('');
}
