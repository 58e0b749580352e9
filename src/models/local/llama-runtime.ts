import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
// Only types: node-llama-cpp is an optional peer, imported at run time by `importLlama` alone, so
// `apiary --help` and endpoint runs never load it.
import type * as NodeLlamaCpp from 'node-llama-cpp';
import { ApiaryError } from '../../shared/index.js';
import type { LocalModelSettings, SerialQueue } from './local-settings.js';

const INSTALL_COMMAND = 'npm install node-llama-cpp';

type Llama = NodeLlamaCpp.Llama;
type LlamaModel = NodeLlamaCpp.LlamaModel;
type LlamaContext = NodeLlamaCpp.LlamaContext;
type LlamaGrammar = NodeLlamaCpp.LlamaGrammar;

export function createSerialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  let depth = 0;
  return {
    get depth() {
      return depth;
    },
    run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      depth++;
      const previous = tail;
      const result = (async () => {
        try {
          await previous.catch(() => {});
          signal?.throwIfAborted();
          return await job();
        } finally {
          depth--;
        }
      })();
      tail = result.catch(() => {});
      return result;
    },
  };
}

/** A GGUF model loaded with one context whose single sequence serves one request at a time. */
export interface LoadedLocalModel {
  readonly settings: Required<LocalModelSettings>;
  readonly llama: Llama;
  readonly model: LlamaModel;
  readonly context: LlamaContext;
  /** The context's one sequence as a completion: its cache of the last prompt is reused by the next. */
  readonly completion: NodeLlamaCpp.LlamaCompletion;
  readonly lib: typeof NodeLlamaCpp;
  readonly queue: SerialQueue;
  /** Milliseconds the load took (the binding, the weights and the context). */
  readonly loadMs: number;
  /**
   * Control and unknown tokens that do not end generation (BOS, `<unk>`) are never sampled: llama.cpp's grammar
   * reads one as its text (BOS as "<s>") while the response drops it, so the text would break the grammar.
   */
  readonly tokenBias: NodeLlamaCpp.TokenBias;
  /** A compiled grammar per GBNF text (compiling is cheap but not free, and protocols repeat theirs). */
  grammar(gbnf: string): Promise<LlamaGrammar>;
}

async function importLlama(): Promise<typeof NodeLlamaCpp> {
  try {
    return await import('node-llama-cpp');
  } catch (error) {
    throw new ApiaryError(
      'USAGE',
      `gguf: models run in process on node-llama-cpp, which is not installed: run \`${INSTALL_COMMAND}\` ` +
        '(or, lean, `npm install --omit=optional node-llama-cpp @node-llama-cpp/linux-x64`), or serve the model ' +
        'with llama.cpp / Ollama and pass --base-url',
      { cause: error },
    );
  }
}

/**
 * Checks that `path` is a readable GGUF file before llama.cpp sees it: a missing file is NOT_FOUND,
 * anything not starting with the GGUF magic is INPUT_INVALID, both naming the file.
 */
export function checkGgufFile(path: string): void {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile())
      throw new ApiaryError('INPUT_INVALID', `${path}: not a file (a gguf: model is a .gguf file)`);
    size = stat.size;
  } catch (error) {
    if (error instanceof ApiaryError) throw error;
    throw new ApiaryError('NOT_FOUND', `model file not found: ${path} (Apiary never downloads a model)`, {
      cause: error,
    });
  }
  const head = Buffer.alloc(4);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  if (size < 4 || head.toString('latin1') !== 'GGUF')
    throw new ApiaryError(
      'INPUT_INVALID',
      `${path}: not a GGUF model file (a GGUF file starts with "GGUF", this one with ${JSON.stringify(head.subarray(0, Math.min(size, 4)).toString('latin1'))})`,
    );
}

let llamaPromise: Promise<{ lib: typeof NodeLlamaCpp; llama: Llama }> | undefined;
/** The first llama.cpp error line of a load, which says why it failed ("data is not within the file bounds"). */
let firstLlamaError = '';

function sharedLlama(): Promise<{ lib: typeof NodeLlamaCpp; llama: Llama }> {
  llamaPromise ??= (async () => {
    const lib = await importLlama();
    // the CPU binary that came with npm: never build llama.cpp or download anything
    const llama = await lib.getLlama({
      gpu: false,
      build: 'never',
      logLevel: lib.LlamaLogLevel.error,
      logger: (level, message) => {
        if (level === lib.LlamaLogLevel.error || level === lib.LlamaLogLevel.fatal)
          firstLlamaError ||= message.trim();
      },
    });
    return { lib, llama };
  })();
  llamaPromise.catch(() => {
    llamaPromise = undefined;
  });
  return llamaPromise;
}

const loaded = new Map<string, Promise<LoadedLocalModel>>();

function filled(settings: LocalModelSettings): Required<LocalModelSettings> {
  return {
    path: settings.path,
    threads: settings.threads ?? availableParallelism(),
    contextSize: settings.contextSize ?? 4096,
    gpuLayers: settings.gpuLayers ?? 0,
  };
}

async function load(settings: Required<LocalModelSettings>): Promise<LoadedLocalModel> {
  const started = Date.now();
  checkGgufFile(settings.path);
  const { lib, llama } = await sharedLlama();
  let model: LlamaModel;
  try {
    firstLlamaError = '';
    model = await llama.loadModel({ modelPath: settings.path, gpuLayers: settings.gpuLayers });
  } catch (error) {
    // llama.cpp's log lines reach JS through a queue, sometimes after the rejection: wait for them briefly
    for (let i = 0; i < 20 && !firstLlamaError; i++) await new Promise((r) => setTimeout(r, 10));
    const why = firstLlamaError || (error as Error).message;
    throw new ApiaryError(
      'INPUT_INVALID',
      `${settings.path}: llama.cpp could not load this GGUF file (truncated or corrupt?): ${why}`,
      { cause: error },
    );
  }
  const trained = model.trainContextSize;
  const contextSize = trained > 0 ? Math.min(settings.contextSize, trained) : settings.contextSize;
  const context = await model.createContext({ contextSize, threads: settings.threads, sequences: 1 });
  const completion = new lib.LlamaCompletion({ contextSequence: context.getSequence() });
  const tokenBias = neverControlTokens(lib, model);
  const grammars = new Map<string, Promise<LlamaGrammar>>();
  return {
    settings: { ...settings, contextSize },
    llama,
    model,
    context,
    completion,
    lib,
    queue: createSerialQueue(),
    loadMs: Date.now() - started,
    tokenBias,
    grammar(gbnf) {
      let g = grammars.get(gbnf);
      if (!g) {
        g = llama.createGrammar({ grammar: gbnf }).catch((error: unknown) => {
          grammars.delete(gbnf);
          throw new ApiaryError(
            'INPUT_INVALID',
            `llama.cpp refused the grammar: ${(error as Error).message}`,
            {
              cause: error,
            },
          );
        });
        grammars.set(gbnf, g);
      }
      return g;
    },
  };
}

/**
 * The model of `settings`, loaded once per process (the same file and settings share one load:
 * every sample of a run, and a served model's requests, go through its one queue).
 */
export function loadLocalModel(settings: LocalModelSettings): Promise<LoadedLocalModel> {
  const full = filled(settings);
  const key = JSON.stringify(full);
  let entry = loaded.get(key);
  if (!entry) {
    entry = load(full);
    loaded.set(key, entry);
    entry.catch(() => loaded.delete(key));
  }
  return entry;
}

/** SentencePiece/GGUF token types (`tokenizer.ggml.token_type`): 2 unknown, 3 control. */
const UNKNOWN_TOKEN = 2;
const CONTROL_TOKEN = 3;

/** Control and unknown tokens that do not end generation, biased to never (see `LoadedLocalModel.tokenBias`). */
export function neverControlTokens(lib: typeof NodeLlamaCpp, model: LlamaModel): NodeLlamaCpp.TokenBias {
  const bias = lib.TokenBias.for(model);
  const types = (model.fileInfo.metadata as { tokenizer?: { ggml?: { token_type?: readonly number[] } } })
    .tokenizer?.ggml?.token_type;
  types?.forEach((type, id) => {
    const token = id as NodeLlamaCpp.Token;
    if ((type === UNKNOWN_TOKEN || type === CONTROL_TOKEN) && !model.isEogToken(token))
      bias.set(token, 'never');
  });
  return bias;
}
