// Plain types of the local model, kept apart from llama-runtime.ts so that no public declaration
// names node-llama-cpp's types (an optional peer: a consumer without it must still compile).

/** How a GGUF file is loaded: llama.cpp's own names (`--threads`, `--ctx-size`, `--gpu-layers`). */
export interface LocalModelSettings {
  /** Absolute path of the GGUF file. */
  path: string;
  /** CPU threads (default: the core count; node-llama-cpp's default of 4 on 2 cores ran 10–50× slower). */
  threads?: number;
  /** Context size in tokens (default 4096, capped by what the model declares). */
  contextSize?: number;
  /** Layers offloaded to a GPU (default 0: the CPU build never needs a GPU). */
  gpuLayers?: number;
}

/** One request at a time per context sequence (llama.cpp contexts are not re-entrant): a FIFO. */
export interface SerialQueue {
  /** Runs `job` once every job queued before it has finished; `signal` drops it while it waits. */
  run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Jobs waiting or running. */
  readonly depth: number;
}

/** What `LocalLanguageModel.load()` tells: the settings in force, the load time and the queue. */
export interface LoadedModelInfo {
  readonly settings: Required<LocalModelSettings>;
  /** Milliseconds the load took (the binding, the weights and the context). */
  readonly loadMs: number;
  readonly queue: { readonly depth: number };
}
