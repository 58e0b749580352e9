/**
 * The AppBench-mini scenario model of ./scenario-model.ts answering after `latencyMs`, for queue
 * workers (`{ kind: 'module' }` recipes): slow enough that a killed worker dies mid-sample and
 * that two workers share the samples.
 */
import { scriptedLanguageModel } from '../../test/index.js';
import { scenarioReply } from './scenario-model.js';

export function createModel(options: { latencyMs?: number } = {}) {
  return scriptedLanguageModel(async (req) => {
    await new Promise((r) => setTimeout(r, options.latencyMs ?? 0));
    return scenarioReply(req);
  });
}
