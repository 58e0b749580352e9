import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeTinyGguf } from '../../../test/index.js';
import { neverControlTokens } from '../../local/llama-runtime.js';

/**
 * llama.cpp itself as the judge of the grammars we write (tests only): a tiny random GGUF model is
 * loaded once per test file; `accepts` feeds a text character by character through llama.cpp's
 * grammar state (one vocabulary token per ASCII character) and asks whether it may end there;
 * `generate` samples under the grammar. node-llama-cpp is a devDependency, imported lazily.
 */
export interface GrammarJudge {
  /** Whether the grammar derives exactly `text` (ASCII only). Throws if llama.cpp refuses the grammar. */
  accepts(grammar: string, text: string): Promise<boolean>;
  /** `count` seeded samples (seeds `seed`, `seed + 1`, …) under the grammar. */
  generate(
    grammar: string,
    opts: { count: number; seed?: number; maxTokens?: number; temperature?: number; prompt?: string },
  ): Promise<string[]>;
  dispose(): Promise<void>;
}

type Llama = Awaited<ReturnType<typeof import('node-llama-cpp')['getLlama']>>;
type LlamaGrammar = Awaited<ReturnType<Llama['createGrammar']>>;

export async function loadGrammarJudge(): Promise<GrammarJudge> {
  const lib = await import('node-llama-cpp');
  const { getLlama, LlamaCompletion, LlamaGrammarEvaluationState } = lib;
  // internal, stable across 3.x: the sampler's grammar checks (what llama.cpp runs while sampling)
  // (not in the package's exports map: imported by its file path)
  const main = createRequire(import.meta.url).resolve('node-llama-cpp');
  const samplerFile = join(dirname(main), 'evaluator', 'LlamaContext', 'LlamaSampler.js');
  const { LlamaSampler } = (await import(/* @vite-ignore */ pathToFileURL(samplerFile).href)) as {
    LlamaSampler: {
      _canBeNextTokenForGrammarEvaluationState(llama: Llama, state: unknown, token: number): boolean;
      _acceptTokenOnGrammarEvaluationState(llama: Llama, state: unknown, token: number): void;
    };
  };
  const dir = mkdtempSync(join(tmpdir(), 'apiary-grammar-judge-'));
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
  const model = await llama.loadModel({ modelPath: writeTinyGguf(join(dir, 'tiny.gguf'), { seed: 1 }) });
  // one thread: on a busy 2-core machine two threads made each token 100× slower
  const context = await model.createContext({ contextSize: 1024, threads: 1 });
  const completion = new LlamaCompletion({ contextSequence: context.getSequence() });

  const vocabulary = (model.fileInfo.metadata as { tokenizer?: { ggml?: { tokens?: readonly unknown[] } } }).tokenizer?.ggml
    ?.tokens?.length;
  const tokenOf = new Map<string, number>();
  for (let id = 0; id < (vocabulary ?? 0); id++) {
    const text = model.detokenize([id as never]);
    if (text.length === 1 && !tokenOf.has(text)) tokenOf.set(text, id);
  }
  // the word-boundary piece reads as a space only after another piece
  const a = tokenOf.get('a')!;
  for (let id = 0; id < (vocabulary ?? 0) && !tokenOf.has(' '); id++)
    if (model.detokenize([a as never, id as never]) === 'a ') tokenOf.set(' ', id);
  const eos = model.tokens.eos as unknown as number;
  // the bias the local model samples with: BOS and <unk> never (the grammar would read them as text)
  const tokenBias = neverControlTokens(lib, model);

  const grammars = new Map<string, Promise<LlamaGrammar>>();
  const compiled = (text: string) => {
    let g = grammars.get(text);
    if (!g) grammars.set(text, (g = llama.createGrammar({ grammar: text })));
    return g;
  };

  return {
    async accepts(grammar, text) {
      const state = new LlamaGrammarEvaluationState({ model, grammar: await compiled(grammar) });
      for (const ch of text) {
        const token = tokenOf.get(ch);
        if (token === undefined) throw new Error(`the judge has no token for ${JSON.stringify(ch)}`);
        if (!LlamaSampler._canBeNextTokenForGrammarEvaluationState(llama, state, token)) return false;
        LlamaSampler._acceptTokenOnGrammarEvaluationState(llama, state, token);
      }
      return LlamaSampler._canBeNextTokenForGrammarEvaluationState(llama, state, eos);
    },
    async generate(grammar, opts) {
      const g = await compiled(grammar);
      const out: string[] = [];
      for (let i = 0; i < opts.count; i++)
        out.push(
          await completion.generateCompletion(opts.prompt ?? 'Answer:', {
            grammar: g,
            maxTokens: opts.maxTokens ?? 400,
            seed: (opts.seed ?? 1) + i,
            temperature: opts.temperature ?? 0.9,
            tokenBias,
          }),
        );
      return out;
    },
    async dispose() {
      await context.dispose();
      await model.dispose();
      await llama.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
