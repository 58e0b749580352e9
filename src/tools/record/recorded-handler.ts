import { type AppCallResult, type AppHandler, isContentResult } from '../../apps/index.js';
import { ApiaryError } from '../../shared/index.js';
import { ToolUnavailableError } from '../tool.js';
import { callKey } from './call-key.js';
import {
  type RecordedToolCall,
  recordContent,
  recordedError,
  replayContent,
  type ToolRecording,
} from './recording.js';

export interface RecordedHandlerOptions {
  /** Where replayed output files are written (the same folder the tool writes into). */
  outputDir: string;
}

/**
 * Wraps an app handler (a tool) so its calls go through a recording: a recorded call is answered
 * from it (files restored and checksummed, errors raised again) without running the tool; what
 * happens on a miss depends on the recording's mode. Tool errors are recorded (replay raises
 * them again); cancelled calls, unconfigured tools and other errors (bugs) are not.
 */
export function recordedHandler(
  inner: AppHandler,
  recording: ToolRecording,
  opts: RecordedHandlerOptions,
): AppHandler {
  return {
    appId: inner.appId,
    owner: inner.owner,
    ...(inner.hasSideEffects
      ? { hasSideEffects: (api: string) => inner.hasSideEffects?.(api) === true }
      : {}),
    async call(api, args, ctx): Promise<AppCallResult> {
      const { key, inputs } = callKey(inner.appId, api, args);
      const recorded = recording.mode === 'record' ? undefined : recording.lookup(key);
      if (recorded) {
        recording.stats.hits++;
        return replay(recorded);
      }
      if (recording.mode !== 'record') recording.stats.misses++;
      if (recording.mode === 'replay')
        throw new ApiaryError(
          'TOOL_FAILED',
          `replay miss: ${inner.appId} ${JSON.stringify(args)} is not in the recording ${recording.dir} (record it with mode record-missing: --record-missing DIR)`,
        );
      recording.stats.runs++;
      const base = { key, tool: inner.appId, api, args, inputs };
      let result: AppCallResult;
      try {
        result = await inner.call(api, args, ctx);
      } catch (e) {
        if (
          e instanceof ApiaryError &&
          e.code === 'TOOL_FAILED' &&
          !(e instanceof ToolUnavailableError) &&
          !ctx.signal?.aborted
        )
          recording.add({ ...base, outcome: { kind: 'error', code: e.code, message: e.message }, files: [] });
        throw e;
      }
      if (isContentResult(result)) {
        const { content, files } = recordContent(recording, result.content);
        recording.add({ ...base, outcome: { kind: 'content', content }, files });
      } else recording.add({ ...base, outcome: { kind: 'result', result }, files: [] });
      return result;
    },
  };

  function replay(call: RecordedToolCall): AppCallResult {
    const { outcome } = call;
    if (outcome.kind === 'error') throw recordedError(outcome.code, outcome.message);
    if (outcome.kind === 'content') return { content: replayContent(recording, call, opts.outputDir) };
    return outcome.result as AppCallResult;
  }
}
