import { type Command, Option } from 'commander';
import type { ResolveModelOptions } from '../models/index.js';
import { parseChoice, parseInteger } from './options.js';

/** The flags of a local model (`--model gguf:PATH`), named as llama.cpp names them. */
export interface LocalModelFlags {
  threads?: string;
  ctxSize?: string;
  gpuLayers?: string;
  constrain?: string;
}

const LOCAL_OPTIONS = {
  threads: [
    '--threads <n>',
    'with --model gguf:PATH: CPU threads (default: the core count; 1 on a busy machine)',
  ],
  'ctx-size': ['--ctx-size <n>', 'with --model gguf:PATH: context size in tokens (default 4096)'],
  'gpu-layers': ['--gpu-layers <n>', 'with --model gguf:PATH: layers offloaded to a GPU (default 0)'],
  constrain: [
    '--constrain <on|off>',
    'with --model gguf:PATH: grammar-constrained tool calls, JSON and protocol output (default on; off shows the format errors it prevents)',
  ],
} as const;

/** One of the local-model flags, for a command built in one chain (`.addOption(...)`). */
export function localModelOption(name: keyof typeof LOCAL_OPTIONS): Option {
  const [flags, description] = LOCAL_OPTIONS[name];
  return new Option(flags, description);
}

/** Adds `--threads`, `--ctx-size`, `--gpu-layers` and `--constrain` to a command that takes `--model`. */
export function addLocalModelOptions(cmd: Command): Command {
  for (const name of Object.keys(LOCAL_OPTIONS) as Array<keyof typeof LOCAL_OPTIONS>)
    cmd.addOption(localModelOption(name));
  return cmd;
}

/** The flags as `resolveModelSetup`'s `local` settings (USAGE errors name the flag). */
export function localModelOptions(flags: LocalModelFlags): NonNullable<ResolveModelOptions['local']> {
  const threads = parseInteger('--threads', flags.threads, { min: 1 });
  const contextSize = parseInteger('--ctx-size', flags.ctxSize, { min: 16 });
  const gpuLayers = parseInteger('--gpu-layers', flags.gpuLayers, { min: 0 });
  const constrain = parseChoice('--constrain', flags.constrain, ['on', 'off'] as const);
  return {
    ...(threads !== undefined ? { threads } : {}),
    ...(contextSize !== undefined ? { contextSize } : {}),
    ...(gpuLayers !== undefined ? { gpuLayers } : {}),
    ...(constrain !== undefined ? { constrain: constrain === 'on' } : {}),
  };
}
