import { resolve } from 'node:path';
import type { Command } from 'commander';
import { ApiaryError } from '../../shared/index.js';
import type { TaskToolSettings, ToolsConfig } from '../../tasks/index.js';
import type { ModelEndpointFlags, RecordMode } from '../../tools/index.js';

/**
 * The flags that configure GTA's executable tools, in one place for `apiary eval gta` and
 * `apiary tools call`: search provider, vision and image endpoints, the embeddings endpoint of
 * similarity scores, and a recording to record into or replay from. Flags win over the
 * `APIARY_*` variables the tools read otherwise.
 */
export interface ToolFlags {
  searchCorpus?: string;
  searchProvider?: string;
  visionBaseUrl?: string;
  visionModel?: string;
  imageBaseUrl?: string;
  imageModel?: string;
  embeddingsBaseUrl?: string;
  embeddingsModel?: string;
  record?: string;
  replay?: string;
  recordMissing?: string;
}

/** The tool flags and their help, in the order `--help` lists them. */
export const TOOL_FLAG_OPTIONS: ReadonlyArray<readonly [flags: string, description: string]> = [
  ['--search-corpus <path>', 'GoogleSearch offline: a .jsonl file or a folder of Markdown files'],
  ['--search-provider <name>', 'GoogleSearch provider: offline | serper (default: offline with a corpus)'],
  ['--vision-base-url <url>', 'vision tools: OpenAI-compatible chat endpoint of a vision-language model'],
  ['--vision-model <id>', 'vision tools: the model name'],
  ['--image-base-url <url>', 'TextToImage, ImageStylization: OpenAI-compatible images endpoint'],
  ['--image-model <id>', 'TextToImage, ImageStylization: the model name'],
  [
    '--embeddings-base-url <url>',
    'similarity scores (subjective answers, generated images): embeddings endpoint',
  ],
  ['--embeddings-model <id>', 'the embeddings model (e.g. all-mpnet-base-v2)'],
  ['--record <dir>', 'run the tools and record every call in this recording folder'],
  ['--replay <dir>', 'answer tool calls from this recording only; a call not in it fails (replay miss)'],
  ['--record-missing <dir>', 'answer from this recording, run and record calls not in it'],
];

export function addToolFlags(cmd: Command): Command {
  for (const [flags, description] of TOOL_FLAG_OPTIONS) cmd.option(flags, description);
  return cmd;
}

const endpoint = (baseURL?: string, model?: string): ModelEndpointFlags | undefined =>
  baseURL || model ? { ...(baseURL ? { baseURL } : {}), ...(model ? { model } : {}) } : undefined;

/** The recording the flags ask for (at most one of --record, --replay, --record-missing). */
function recordingFlag(flags: ToolFlags): { dir: string; mode: RecordMode } | undefined {
  const given = (
    [
      ['record', flags.record],
      ['replay', flags.replay],
      ['record-missing', flags.recordMissing],
    ] as const
  ).filter(([, dir]) => dir !== undefined);
  if (given.length > 1)
    throw new ApiaryError(
      'USAGE',
      `choose one of --record, --replay and --record-missing (got ${given.length})`,
    );
  const [mode, dir] = given[0] ?? [];
  return mode && dir ? { dir: resolve(dir), mode } : undefined;
}

/** Tool configuration, recording and embeddings endpoint from the flags. */
export function toolSettingsFrom(flags: ToolFlags): TaskToolSettings {
  const vision = endpoint(flags.visionBaseUrl, flags.visionModel);
  const image = endpoint(flags.imageBaseUrl, flags.imageModel);
  const embeddings = endpoint(flags.embeddingsBaseUrl, flags.embeddingsModel);
  // the search provider is read by the task that builds the tools (GTA's GoogleSearch)
  const config: ToolsConfig & { search?: { corpus?: string; provider?: string } } = {
    ...(flags.searchCorpus || flags.searchProvider
      ? {
          search: {
            ...(flags.searchCorpus ? { corpus: resolve(flags.searchCorpus) } : {}),
            ...(flags.searchProvider ? { provider: flags.searchProvider } : {}),
          },
        }
      : {}),
    ...(vision ? { vision } : {}),
    ...(image ? { image } : {}),
  };
  const recording = recordingFlag(flags);
  return { config, ...(recording ? { recording } : {}), ...(embeddings ? { embeddings } : {}) };
}
