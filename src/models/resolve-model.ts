import { isAbsolute, resolve } from 'node:path';
import { ApiaryError, registerSecret } from '../shared/index.js';
import { createEndpointChatModel } from './endpoint-chat-model.js';
import { sharedEndpoint } from './endpoint-fetch.js';
import { ggufPathOf, LocalLanguageModel, type LocalModelOptions } from './local/local-model.js';
import { type ModelConfigFile, readModelConfigFile } from './model-config.js';
import type { LanguageModelV3, SamplingSettings } from './sampling.js';

export interface ResolveModelOptions {
  /** `--base-url`: OpenAI-compatible endpoint ending in `/v1`. */
  baseURL?: string;
  /** `--model`: model name. */
  model?: string;
  /** `--api-key-env`: name of the env variable holding the key. */
  apiKeyEnv?: string;
  /** `--config`: path of the config file (default `./apiary.config.json`, optional). */
  configFile?: string;
  /** Sampling overrides (flags); unset fields come from env, then the config file, then `defaults`. */
  sampling?: SamplingSettings;
  /** The task's sampling defaults (e.g. AppBench's temperature 0, top_p 0, 1024 tokens). */
  defaults?: SamplingSettings;
  /** How a `gguf:PATH` model runs (`--threads`, `--ctx-size`, `--gpu-layers`, `--constrain`). */
  local?: Omit<LocalModelOptions, 'path'>;
}

export interface ResolveModelDeps {
  env: Record<string, string | undefined>;
  cwd: string;
  readText?: (path: string) => string;
  exists?: (path: string) => boolean;
}

export interface ResolvedModel {
  model: LanguageModelV3;
  modelId: string;
  baseURL: string;
  /** Where the API key came from (env variable name), or undefined when none is used. */
  apiKeySource: string | undefined;
  /** The key itself, for requests made outside the AI SDK (the endpoint check); never print it. */
  apiKey?: string;
  /** The sampling settings configured (flags, env, config file); the task fills in the rest. */
  sampling: SamplingSettings;
  /** A `gguf:PATH` model run in process: the absolute file and how it runs (`baseURL` is `gguf:` + the file). */
  local?: LocalModelOptions;
}

const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

function parseTopP(value: string | undefined): number | null | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'omit' || value === 'none' || value === 'null') return null;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new ApiaryError('USAGE', `APIARY_TOP_P must be a number in [0, 1] or "omit", got "${value}"`);
  return n;
}

/**
 * The sampling settings of a run, each field from the first source that sets it: flags, then the
 * environment (`APIARY_TOP_P`), then the config file, then the task's defaults. Models add no
 * defaults of their own: a field no source sets is left out of requests.
 */
export function layerSampling(
  flags: SamplingSettings,
  env: Record<string, string | undefined>,
  file: ModelConfigFile | undefined,
  defaults: SamplingSettings | undefined,
): SamplingSettings {
  const first = <T>(...values: Array<T | undefined>): T | undefined => values.find((v) => v !== undefined);
  const temperature = first(flags.temperature, file?.sampling?.temperature, defaults?.temperature);
  const topP = first(flags.topP, parseTopP(env.APIARY_TOP_P), file?.sampling?.topP, defaults?.topP);
  const maxOutputTokens = first(
    flags.maxOutputTokens,
    file?.sampling?.maxOutputTokens,
    defaults?.maxOutputTokens,
  );
  const stopSequences = first(flags.stopSequences, defaults?.stopSequences);
  const seed = first(flags.seed, defaults?.seed);
  return {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(stopSequences !== undefined ? { stopSequences } : {}),
    ...(seed !== undefined ? { seed } : {}),
  };
}

/**
 * Resolves the model endpoint from flags > env (`APIARY_BASE_URL`, `APIARY_MODEL`,
 * `APIARY_API_KEY_ENV` / `APIARY_API_KEY`, fallback `OPENAI_API_KEY`; `APIARY_TOP_P`) > config file.
 * Returns undefined when neither a base URL nor a model name is configured anywhere.
 */
export function resolveModelSetup(
  opts: ResolveModelOptions = {},
  deps: ResolveModelDeps = { env: process.env, cwd: process.cwd() },
): ResolvedModel | undefined {
  const { env } = deps;
  const file = readModelConfigFile(
    opts.configFile ?? env.APIARY_CONFIG,
    deps.cwd,
    deps.readText,
    deps.exists,
  );
  const baseURLSetting = opts.baseURL ?? env.APIARY_BASE_URL ?? file?.baseURL;
  const modelId = opts.model ?? env.APIARY_MODEL ?? file?.model;
  const localSet = Object.values(opts.local ?? {}).some((v) => v !== undefined);
  const localOnly = (what: string) =>
    new ApiaryError(
      'USAGE',
      `--threads, --ctx-size, --gpu-layers and --constrain apply to local models (--model gguf:PATH), not to ${what}`,
    );
  if (!baseURLSetting && !modelId) {
    if (localSet) throw localOnly('a run without a model');
    return undefined;
  }
  if (!modelId)
    throw new ApiaryError(
      'USAGE',
      `a model endpoint is configured (${baseURLSetting}) but no model name: pass --model or set APIARY_MODEL`,
    );
  const ggufPath = ggufPathOf(modelId);
  if (ggufPath !== undefined) {
    if (opts.baseURL)
      throw new ApiaryError(
        'USAGE',
        `--model ${modelId} runs in process: --base-url ${opts.baseURL} is for a served model (drop one of the two)`,
      );
    if (!ggufPath)
      throw new ApiaryError('USAGE', '--model gguf: names no file: pass --model gguf:PATH/TO/model.gguf');
    const path = isAbsolute(ggufPath) ? ggufPath : resolve(deps.cwd, ggufPath);
    const local: LocalModelOptions = { path, ...definedOnly(opts.local ?? {}) };
    const model = new LocalLanguageModel(local);
    return {
      model,
      modelId: model.modelId,
      baseURL: `gguf:${path}`,
      apiKeySource: undefined,
      sampling: layerSampling(opts.sampling ?? {}, env, file, opts.defaults),
      local,
    };
  }
  if (localSet) throw localOnly(modelId);
  const baseURL = (baseURLSetting ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');

  let apiKey: string | undefined;
  let apiKeySource: string | undefined;
  const keyEnv = opts.apiKeyEnv ?? env.APIARY_API_KEY_ENV ?? file?.apiKeyEnv;
  if (keyEnv) {
    apiKey = env[keyEnv];
    apiKeySource = keyEnv;
    if (!apiKey) throw new ApiaryError('USAGE', `the API key variable ${keyEnv} is not set`);
  } else if (env.APIARY_API_KEY) {
    apiKey = env.APIARY_API_KEY;
    apiKeySource = 'APIARY_API_KEY';
  } else if (env.OPENAI_API_KEY) {
    apiKey = env.OPENAI_API_KEY;
    apiKeySource = 'OPENAI_API_KEY';
  }

  registerSecret(apiKey);
  const sampling = layerSampling(opts.sampling ?? {}, env, file, opts.defaults);

  // @ai-sdk/openai-compatible's chat model with a lean path for plain text turns
  // (./endpoint-chat-model.ts), posting over one keep-alive pool per process (./endpoint-fetch.ts)
  const model = createEndpointChatModel({
    name: 'apiary',
    baseURL,
    modelId,
    ...(apiKey ? { apiKey } : {}),
    ...sharedEndpoint(),
  });
  return {
    model,
    modelId,
    baseURL,
    apiKeySource,
    ...(apiKey ? { apiKey } : {}),
    sampling,
  };
}

function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** The configured model, or undefined when nothing is configured (see {@link resolveModelSetup}). */
export function resolveModel(
  opts: ResolveModelOptions = {},
  deps?: ResolveModelDeps,
): LanguageModelV3 | undefined {
  return resolveModelSetup(opts, deps)?.model;
}
