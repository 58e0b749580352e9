import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany } from 'ai';
import { ApiaryError } from '../shared/index.js';
import type { Embedder } from './types.js';

export interface OpenAiEmbedderOptions {
  /** Base URL of an OpenAI-compatible API, e.g. `http://localhost:11434/v1`. */
  baseURL: string;
  model: string;
  /** Vector length the model returns (checked on every response). */
  dimension: number;
  apiKey?: string;
  /** Texts per request (embedMany splits larger inputs; default 64). */
  batchSize?: number;
  maxRetries?: number;
  /** Injected for tests. */
  fetch?: typeof globalThis.fetch;
}

/**
 * `Embedder` over any OpenAI-compatible `/embeddings` endpoint via the AI SDK (`embedMany` with
 * `@ai-sdk/openai-compatible`). Errors become `ApiaryError('MODEL_CALL_FAILED')`.
 */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly name: string;
  readonly dimension: number;
  private readonly model;
  private readonly batchSize: number;
  private readonly maxRetries: number;

  constructor(opts: OpenAiEmbedderOptions) {
    const provider = createOpenAICompatible({
      name: 'apiary-embeddings',
      baseURL: opts.baseURL,
      ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
    this.model = provider.embeddingModel(opts.model);
    this.name = `openai-compatible(${opts.model})`;
    this.dimension = opts.dimension;
    this.batchSize = opts.batchSize ?? 64;
    this.maxRetries = opts.maxRetries ?? 2;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const values = texts.slice(i, i + this.batchSize);
      let embeddings: number[][];
      try {
        ({ embeddings } = await embedMany({ model: this.model, values, maxRetries: this.maxRetries }));
      } catch (error) {
        throw new ApiaryError(
          'MODEL_CALL_FAILED',
          `${this.name}: embeddings request failed: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
      if (embeddings.length !== values.length)
        throw new ApiaryError(
          'MODEL_CALL_FAILED',
          `${this.name}: ${embeddings.length} embeddings for ${values.length} texts`,
        );
      for (const e of embeddings) {
        if (e.length !== this.dimension)
          throw new ApiaryError(
            'MODEL_CALL_FAILED',
            `${this.name}: embedding of dimension ${e.length}, expected ${this.dimension}`,
          );
        out.push(Float32Array.from(e));
      }
    }
    return out;
  }
}
