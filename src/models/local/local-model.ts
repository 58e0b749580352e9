import { basename } from 'node:path';
import { readConstraint } from '../grammar/constraint.js';
import type { LanguageModelV3 } from '../sampling.js';
import { jsonSchemaGbnf, readToolCallAnswer, toolCallGbnf } from './constraints.js';
import { type LoadedLocalModel, loadLocalModel } from './llama-runtime.js';
import {
  type ChatTurn,
  chatTurns,
  type OfferedTool,
  plainPromptText,
  toolInstructions,
} from './local-prompt.js';
import type { LoadedModelInfo, LocalModelSettings } from './local-settings.js';

type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;
type StreamPart =
  Awaited<ReturnType<LanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
type Content = GenerateResult['content'][number];

/** The prefix of a local model id: `gguf:PATH`. */
const GGUF_PREFIX = 'gguf:';

export interface LocalModelOptions extends LocalModelSettings {
  /**
   * Grammar-constrained decoding (default true): tool calls, JSON response formats and the
   * grammars protocols send (`generate({ constraint })`, i.e. `providerOptions.apiaryGrammar`). `false` turns every grammar off,
   * so the format errors a model makes on its own show.
   */
  constrain?: boolean;
}

/** Output tokens when the call sets no limit: a random or looping model must stop somewhere. */
const DEFAULT_MAX_TOKENS = 1024;

/** The grammar a call asks for, and how its output is read. */
interface Decoding {
  gbnf?: string;
  /** Tools offered: the output is a tool-call answer. */
  tools?: readonly OfferedTool[];
  /** Added to the system message (the tools and the answer format). */
  instructions?: string;
}

function decodingOf(options: CallOptions, constrain: boolean): Decoding {
  const own = readConstraint(options.providerOptions);
  const offered = (options.tools ?? []).filter((t) => t.type === 'function');
  const choice = options.toolChoice ?? { type: 'auto' };
  if (own !== undefined) return constrain ? { gbnf: own.grammar } : {};
  if (offered.length && choice.type !== 'none') {
    const tools: OfferedTool[] = (
      choice.type === 'tool' ? offered.filter((t) => t.name === choice.toolName) : offered
    ).map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      inputSchema: t.inputSchema,
    }));
    const allowFinal = choice.type === 'auto';
    return {
      tools,
      instructions: toolInstructions(tools, allowFinal),
      ...(constrain ? { gbnf: toolCallGbnf(tools, allowFinal) } : {}),
    };
  }
  if (options.responseFormat?.type === 'json')
    return constrain ? { gbnf: jsonSchemaGbnf(options.responseFormat.schema) } : {};
  return {};
}

/** The prompt text in the model's chat template (node-llama-cpp resolves it), else a plain one. */
function promptText(loaded: LoadedLocalModel, turns: ChatTurn[]): { text: unknown; stops: unknown[] } {
  try {
    const wrapper = loaded.lib.resolveChatWrapper(loaded.model);
    const state = wrapper.generateContextState({ chatHistory: turns });
    return { text: state.contextText, stops: [...(state.stopGenerationTriggers ?? [])] };
  } catch {
    return { text: plainPromptText(turns), stops: ['\nUser:'] };
  }
}

function usageOf(input: number, output: number): GenerateResult['usage'] {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

let callCounter = 0;

/**
 * A GGUF file as an AI SDK model (LanguageModelV3) running in process on node-llama-cpp: the
 * prompt in the model's chat template, tools as a grammar of one call or a final answer (read back
 * into tool-call parts), JSON response formats and protocol grammars as grammars, usage from token
 * counts. The file is loaded on the first call (`load()` loads it earlier); calls queue on its one
 * context sequence.
 */
export class LocalLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;
  /**
   * `apiary.local(<absolute path>)`, `+unconstrained` with grammars off: the response cache keys on
   * provider and model id, and neither two files of one name nor a constrained and a free answer
   * may share an entry.
   */
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls = {};
  private readonly options: LocalModelOptions;

  constructor(options: LocalModelOptions) {
    this.options = options;
    this.modelId = `${GGUF_PREFIX}${basename(options.path)}`;
    this.provider = `apiary.local(${options.path})${options.constrain === false ? '+unconstrained' : ''}`;
  }

  /** Loads the file (once per process): a bad file or a missing node-llama-cpp throws here. */
  load(): Promise<LoadedModelInfo> {
    return this.loaded();
  }

  private loaded(): Promise<LoadedLocalModel> {
    const { constrain: _, ...settings } = this.options;
    return loadLocalModel(settings);
  }

  async doGenerate(options: CallOptions): Promise<GenerateResult> {
    const loaded = await this.loaded();
    const constrain = this.options.constrain !== false;
    const decoding = decodingOf(options, constrain);
    const turns = chatTurns(options.prompt, decoding.instructions);
    const prompt = promptText(loaded, turns);
    const grammar = decoding.gbnf !== undefined ? await loaded.grammar(decoding.gbnf) : undefined;
    const signal = options.abortSignal;
    const { response, stopReason, inputTokens, outputTokens } = await loaded.queue.run(async () => {
      let produced = 0;
      const input = (prompt.text as { tokenize?: (t: unknown) => unknown[] }).tokenize
        ? (prompt.text as { tokenize: (t: unknown) => unknown[] }).tokenize(loaded.model.tokenizer)
        : loaded.model.tokenize(prompt.text as string);
      const temperature = options.temperature ?? 0;
      const result = await loaded.completion.generateCompletionWithMeta(input as never, {
        maxTokens: options.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
        temperature,
        ...(temperature > 0 && options.topP !== undefined && options.topP > 0 ? { topP: options.topP } : {}),
        ...(temperature > 0 && options.topK !== undefined ? { topK: options.topK } : {}),
        ...(options.seed !== undefined ? { seed: options.seed } : {}),
        ...(grammar ? { grammar } : {}),
        tokenBias: loaded.tokenBias,
        customStopTriggers: [...(grammar ? [] : prompt.stops), ...(options.stopSequences ?? [])] as never,
        ...(signal ? { signal } : {}),
        onToken: (tokens) => {
          produced += tokens.length;
        },
      });
      return {
        response: result.response,
        stopReason: result.metadata.stopReason,
        inputTokens: input.length,
        outputTokens: produced,
      };
    }, signal);

    const content: Content[] = [];
    let finish: GenerateResult['finishReason']['unified'] = stopReason === 'maxTokens' ? 'length' : 'stop';
    if (decoding.tools) {
      const answer = readToolCallAnswer(response);
      if (answer.kind === 'call') {
        content.push({
          type: 'tool-call',
          toolCallId: `local-${++callCounter}`,
          toolName: answer.name,
          input: answer.inputText,
        });
        if (finish !== 'length') finish = 'tool-calls';
      } else content.push({ type: 'text', text: answer.text });
    } else content.push({ type: 'text', text: response });
    return {
      content,
      finishReason: { unified: finish, raw: stopReason },
      usage: usageOf(inputTokens, outputTokens),
      warnings: [],
      response: { modelId: this.modelId, timestamp: new Date() },
    };
  }

  /** One generation streamed as its parts (the whole answer at once: there is no token streaming yet). */
  async doStream(options: CallOptions): Promise<Awaited<ReturnType<LanguageModelV3['doStream']>>> {
    const result = await this.doGenerate(options);
    const parts: StreamPart[] = [{ type: 'stream-start', warnings: result.warnings }];
    for (const [i, part] of result.content.entries()) {
      if (part.type === 'text') {
        const id = String(i);
        parts.push(
          { type: 'text-start', id },
          { type: 'text-delta', id, delta: part.text },
          { type: 'text-end', id },
        );
      } else parts.push(part as StreamPart);
    }
    parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
    return {
      stream: new ReadableStream<StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  }
}

/** `gguf:PATH` as a model (undefined for any other model id). */
export function ggufPathOf(modelId: string): string | undefined {
  return modelId.startsWith(GGUF_PREFIX) ? modelId.slice(GGUF_PREFIX.length) : undefined;
}

/** A GGUF file as an AI SDK model (see {@link LocalLanguageModel}); nothing loads before its first call. */
export function createLocalModel(options: LocalModelOptions): LocalLanguageModel {
  return new LocalLanguageModel(options);
}
