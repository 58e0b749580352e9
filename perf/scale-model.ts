/**
 * The model of the eval perf scripts, buildable from a recipe in a worker thread
 * (`{ kind: 'module', module: <this file>, options: { latencyMs } }`): answers each AppBench-mini
 * instruction with its gold reply after `latencyMs`. A bare AI SDK v3 model: unlike the scripted
 * test model it keeps no request log (10,000 retained prompts would be the benchmark's own GC load).
 */
import { resolve } from 'node:path';
import { appBenchGoldReply, loadAppBenchDataset } from '../src/benchmarks/appbench/index.js';
import type { LanguageModelV3 } from '../src/models/index.js';

const mini = loadAppBenchDataset(resolve(import.meta.dirname, '../examples/appbench-mini')).samples;
const goldByInput = new Map(mini.map((s) => [s.record.input, appBenchGoldReply(s.record)]));

type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];

function lastUserText(prompt: CallOptions['prompt']): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i]!;
    if (m.role !== 'user') continue;
    return m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
  }
  return '';
}

export function createModel(options: { latencyMs?: number } = {}): LanguageModelV3 {
  const latency = options.latencyMs ?? 0;
  return {
    specificationVersion: 'v3',
    provider: 'scale',
    modelId: 'gold',
    supportedUrls: {},
    async doGenerate(call) {
      if (latency > 0) await new Promise((r) => setTimeout(r, latency));
      const text = goldByInput.get(lastUserText(call.prompt)) ?? '';
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      };
    },
    async doStream() {
      throw new Error('the scale model does not stream');
    },
  };
}
