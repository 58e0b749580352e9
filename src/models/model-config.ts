import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ApiaryError, parseWith, readTextFile } from '../shared/index.js';

/**
 * `apiary.config.json` (model part). Unknown top-level keys are allowed so that other
 * features can share the file.
 */
const ModelConfigFileSchema = z.looseObject({
  /** OpenAI-compatible base URL, e.g. `http://localhost:8000/v1`. */
  baseURL: z.url().optional(),
  /** Model name sent in the request. */
  model: z.string().min(1).optional(),
  /** Name of the environment variable that holds the API key. */
  apiKeyEnv: z.string().min(1).optional(),
  sampling: z
    .object({
      temperature: z.number().min(0).max(2).optional(),
      /** `null` omits top_p (for servers that reject 0). */
      topP: z.number().min(0).max(1).nullable().optional(),
      maxOutputTokens: z.number().int().positive().optional(),
    })
    .optional(),
});
export type ModelConfigFile = z.infer<typeof ModelConfigFileSchema>;

const DEFAULT_CONFIG_FILE = 'apiary.config.json';

/**
 * Reads a config file. An explicitly named file must exist; the default `apiary.config.json`
 * in `cwd` is optional (undefined when absent).
 */
export function readModelConfigFile(
  configFile: string | undefined,
  cwd: string,
  readText: (path: string) => string = readTextFile,
  exists: (path: string) => boolean = existsSync,
): ModelConfigFile | undefined {
  const path = resolve(cwd, configFile ?? DEFAULT_CONFIG_FILE);
  if (!exists(path)) {
    if (configFile) throw new ApiaryError('NOT_FOUND', `config file not found: ${path}`);
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(readText(path));
  } catch (err) {
    throw new ApiaryError('INPUT_INVALID', `${path}: not valid JSON (${(err as Error).message})`, {
      cause: err,
    });
  }
  return parseWith(ModelConfigFileSchema, json, { file: path });
}
