import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany } from 'ai';
import { ApiaryError } from '../shared/index.js';
import { type ModelEndpoint, type ModelEndpointFlags, modelEndpointFromEnv } from './model-endpoint.js';

export interface EmbeddingsClientOptions {
  endpoint: ModelEndpoint;
  /** Texts per request (default 32). */
  batchSize?: number;
  /** Vectors kept in memory, least recently used dropped first (default 10 000; 0 = no cache). */
  cacheSize?: number;
  /** Retries of a failed request (default 2, the SDK backs off between them). */
  maxRetries?: number;
  /** Per-request timeout (default 60 s). */
  timeoutMs?: number;
}

export interface EmbeddingsStats {
  /** Requests sent to the endpoint. */
  requests: number;
  /** Texts sent (each distinct text once per miss). */
  embedded: number;
  /** Texts answered from the cache or by a duplicate in the same call. */
  cacheHits: number;
}

/**
 * Sentence embeddings from an OpenAI-compatible `/v1/embeddings` endpoint: the embedder GTA's
 * answer matching takes (`simScore`, the ImgGen similarity), in the shape of `GtaEmbedder`.
 */
export interface EmbeddingsClient {
  readonly model: string;
  readonly stats: Readonly<EmbeddingsStats>;
  /** One vector per text, in order. */
  embed(texts: readonly string[]): Promise<number[][]>;
}

/**
 * An embeddings client over the AI SDK (`embedMany` with the `@ai-sdk/openai-compatible` text
 * embedding model): the distinct texts a call has not seen before are sent in batches of
 * `batchSize`; vectors are cached by exact text (scoring embeds the same references again and
 * again). A failed request, or an answer with the wrong number of vectors, is `MODEL_CALL_FAILED`.
 */
export function createEmbeddingsClient(opts: EmbeddingsClientOptions): EmbeddingsClient {
  const provider = createOpenAICompatible({
    name: 'apiary-embeddings',
    baseURL: opts.endpoint.baseURL,
    ...(opts.endpoint.apiKey ? { apiKey: opts.endpoint.apiKey } : {}),
  });
  const model = provider.embeddingModel(opts.endpoint.model);
  const batchSize = Math.max(1, opts.batchSize ?? 32);
  const cacheSize = Math.max(0, opts.cacheSize ?? 10_000);
  const cache = new Map<string, number[]>();
  const stats: EmbeddingsStats = { requests: 0, embedded: 0, cacheHits: 0 };

  const remember = (text: string, vector: number[]) => {
    if (cacheSize === 0) return;
    cache.delete(text);
    cache.set(text, vector);
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
  };
  const recall = (text: string): number[] | undefined => {
    const v = cache.get(text);
    if (v) {
      cache.delete(text); // refresh: a Map iterates in insertion order, oldest first
      cache.set(text, v);
    }
    return v;
  };

  const fetchBatch = async (values: string[]): Promise<number[][]> => {
    stats.requests++;
    stats.embedded += values.length;
    let embeddings: number[][];
    try {
      ({ embeddings } = await embedMany({
        model,
        values,
        maxRetries: opts.maxRetries ?? 2,
        abortSignal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
      }));
    } catch (error) {
      throw new ApiaryError(
        'MODEL_CALL_FAILED',
        `embeddings model ${opts.endpoint.model} at ${opts.endpoint.baseURL} failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (embeddings.length !== values.length)
      throw new ApiaryError(
        'MODEL_CALL_FAILED',
        `embeddings model ${opts.endpoint.model}: ${embeddings.length} vectors for ${values.length} texts`,
      );
    return embeddings;
  };

  return {
    model: opts.endpoint.model,
    stats,
    async embed(texts) {
      const found = new Map<string, number[]>();
      const missing = new Set<string>();
      for (const text of texts) {
        if (found.has(text) || missing.has(text)) continue;
        const v = recall(text);
        if (v) found.set(text, v);
        else missing.add(text);
      }
      stats.cacheHits += texts.length - missing.size;
      const toSend = [...missing];
      for (let i = 0; i < toSend.length; i += batchSize) {
        const batch = toSend.slice(i, i + batchSize);
        const vectors = await fetchBatch(batch);
        batch.forEach((text, j) => {
          found.set(text, vectors[j]!);
          remember(text, vectors[j]!);
        });
      }
      return texts.map((t) => found.get(t)!);
    },
  };
}

/** The client on the endpoint that flags or `APIARY_EMBEDDINGS_*` variables configure; undefined when none is. */
export function embeddingsClientFromEnv(
  env: Record<string, string | undefined>,
  flags: ModelEndpointFlags = {},
): EmbeddingsClient | undefined {
  const endpoint = modelEndpointFromEnv('embeddings', env, flags);
  return endpoint ? createEmbeddingsClient({ endpoint }) : undefined;
}
