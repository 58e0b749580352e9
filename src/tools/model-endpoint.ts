import { ApiaryError, registerSecret } from '../shared/index.js';

/** An OpenAI-compatible endpoint and model that a tool calls (vision chat, images, embeddings). */
export interface ModelEndpoint {
  /** Base URL ending in `/v1`, e.g. `http://localhost:8000/v1`. */
  baseURL: string;
  model: string;
  apiKey?: string;
}

/** Which endpoint: each has its own flags and variables so one run can use three servers. */
export type ModelEndpointKind = 'vision' | 'image' | 'embeddings';

export interface ModelEndpointFlags {
  /** `--<kind>-base-url` */
  baseURL?: string;
  /** `--<kind>-model` */
  model?: string;
  /** The key itself (from `--<kind>-api-key-env` or the caller's own lookup). */
  apiKey?: string;
}

const PURPOSE: Record<ModelEndpointKind, string> = {
  vision: 'chat endpoint serving a vision-language model',
  image: 'images endpoint (/v1/images/generations and /v1/images/edits)',
  embeddings: 'embeddings endpoint (/v1/embeddings)',
};

const envPrefix = (kind: ModelEndpointKind) => `APIARY_${kind.toUpperCase()}`;

/** The sentence an unconfigured tool answers with: which flags or variables to set. */
export function endpointHint(kind: ModelEndpointKind): string {
  const p = envPrefix(kind);
  return `set ${p}_BASE_URL and ${p}_MODEL (or --${kind}-base-url and --${kind}-model; key in ${p}_API_KEY) to an OpenAI-compatible ${PURPOSE[kind]}`;
}

/**
 * The endpoint of one kind, flags before environment (`APIARY_VISION_BASE_URL`,
 * `APIARY_VISION_MODEL`, `APIARY_VISION_API_KEY`; `IMAGE` and `EMBEDDINGS` likewise); `undefined`
 * when neither URL nor model is set. Only one of the two set is a usage error naming the other.
 */
export function modelEndpointFromEnv(
  kind: ModelEndpointKind,
  env: Record<string, string | undefined>,
  flags: ModelEndpointFlags = {},
): ModelEndpoint | undefined {
  const p = envPrefix(kind);
  const baseURL = flags.baseURL || env[`${p}_BASE_URL`] || undefined;
  const model = flags.model || env[`${p}_MODEL`] || undefined;
  if (!baseURL && !model) return undefined;
  if (!baseURL)
    throw new ApiaryError(
      'USAGE',
      `a ${kind} model is set (${model}) but no endpoint: pass --${kind}-base-url or set ${p}_BASE_URL`,
    );
  if (!model)
    throw new ApiaryError(
      'USAGE',
      `a ${kind} endpoint is set (${baseURL}) but no model: pass --${kind}-model or set ${p}_MODEL`,
    );
  const apiKey = flags.apiKey || env[`${p}_API_KEY`] || undefined;
  registerSecret(apiKey);
  return { baseURL: baseURL.replace(/\/+$/, ''), model, ...(apiKey ? { apiKey } : {}) };
}
