import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import envPaths from 'env-paths';
import { sha256Hex } from '../shared/index.js';
import type { LanguageModelV3 } from './sampling.js';

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapGenerate']>>[0]['params'];
type GenerateResultV3 = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;

/** Default cache folder: `<user cache dir>/apiary/model-responses` (env-paths). */
function defaultResponseCacheDir(): string {
  return join(envPaths('apiary').cache, 'model-responses');
}

export interface ResponseCacheStats {
  hits: number;
  misses: number;
  writes: number;
}

export interface ResponseCache {
  dir: string;
  stats: ResponseCacheStats;
  middleware: LanguageModelMiddleware;
  /** The model with the cache in front of it. */
  wrap(model: LanguageModelV3): LanguageModelV3;
}

/**
 * The cache key: sha256 over the whole request that shapes the answer: the model identity
 * (provider + model id), the prompt (system message included), every sampling setting, the tools
 * (names, descriptions, JSON Schemas), the tool choice and provider options. Abort signals and
 * headers are not part of it. Tool choice and provider options join the material only when set, so
 * keys of plain text calls stay those of caches written before they were added.
 */
function responseCacheKey(model: { provider: string; modelId: string }, params: CallOptions): string {
  const material = {
    model: `${model.provider}:${model.modelId}`,
    prompt: params.prompt,
    settings: {
      temperature: params.temperature ?? null,
      topP: params.topP ?? null,
      topK: params.topK ?? null,
      maxOutputTokens: params.maxOutputTokens ?? null,
      stopSequences: params.stopSequences ?? null,
      seed: params.seed ?? null,
      presencePenalty: params.presencePenalty ?? null,
      frequencyPenalty: params.frequencyPenalty ?? null,
      responseFormat: params.responseFormat ?? null,
      tools: params.tools ?? null,
      ...(params.toolChoice === undefined ? {} : { toolChoice: params.toolChoice }),
      ...(params.providerOptions === undefined ? {} : { providerOptions: params.providerOptions }),
    },
  };
  return sha256Hex(JSON.stringify(material));
}

/** Whether a call's provider metadata says the answer came from the response cache. */
export function wasCacheHit(providerMetadata: unknown): boolean {
  const apiary = (providerMetadata as { apiary?: { cacheHit?: unknown } } | undefined)?.apiary;
  return apiary?.cacheHit === true;
}

interface CacheEntry {
  key: string;
  model: string;
  result: Pick<GenerateResultV3, 'content' | 'finishReason' | 'usage' | 'warnings'>;
}

/**
 * A response cache for non-streaming calls, as AI SDK middleware: one JSON file per answer at
 * `<dir>/<key[0..2]>/<key>.json`, written atomically (temp file + rename). A hit returns the stored
 * content and usage (so token counts of a rerun equal the original run), makes no request and
 * marks the answer with provider metadata `{ apiary: { cacheHit: true } }` (see {@link wasCacheHit}).
 * Failed calls are not cached. Corrupt entries are treated as misses and overwritten.
 */
export function createResponseCache(opts: { dir?: string } = {}): ResponseCache {
  const dir = opts.dir ?? defaultResponseCacheDir();
  const stats: ResponseCacheStats = { hits: 0, misses: 0, writes: 0 };
  const pathOf = (key: string) => join(dir, key.slice(0, 2), `${key}.json`);

  const read = (key: string): CacheEntry | undefined => {
    try {
      const entry = JSON.parse(readFileSync(pathOf(key), 'utf8')) as CacheEntry;
      return entry.key === key && Array.isArray(entry.result?.content) ? entry : undefined;
    } catch {
      return undefined;
    }
  };

  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const key = responseCacheKey(model, params);
      const hit = read(key);
      if (hit) {
        stats.hits++;
        return { ...hit.result, providerMetadata: { apiary: { cacheHit: true } } };
      }
      stats.misses++;
      const result = await doGenerate();
      const entry: CacheEntry = {
        key,
        model: `${model.provider}:${model.modelId}`,
        result: {
          content: result.content,
          finishReason: result.finishReason,
          usage: result.usage,
          warnings: result.warnings,
        },
      };
      const path = pathOf(key);
      mkdirSync(join(dir, key.slice(0, 2)), { recursive: true });
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(entry));
      renameSync(tmp, path);
      stats.writes++;
      return result;
    },
  };
  return { dir, stats, middleware, wrap: (model) => wrapLanguageModel({ model, middleware }) };
}
