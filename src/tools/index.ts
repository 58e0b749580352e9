/**
 * Executable tools and what they are built from: the tool contract (runnable through
 * `dispatchCall` as an app), the Python sandbox and its `solution()` runner, search providers,
 * model endpoints, embeddings, file access and record/replay. A benchmark's own tools live in
 * its plugin. Subpath `apiary/tools`.
 * @module
 */

// Sentence embeddings (OpenAI-compatible /v1/embeddings), e.g. for answer similarity
export {
  createEmbeddingsClient,
  type EmbeddingsClient,
  type EmbeddingsClientOptions,
  type EmbeddingsStats,
  embeddingsClientFromEnv,
} from './embeddings.js';
// Which files a tool's file arguments may name (granted folders and files, symlinks resolved)
export { grantedPath, type ReadablePaths, readablePaths } from './file-access.js';
// Endpoints the model-backed tools call (vision chat, images, embeddings): flags and variables
export {
  endpointHint,
  type ModelEndpoint,
  type ModelEndpointFlags,
  type ModelEndpointKind,
  modelEndpointFromEnv,
} from './model-endpoint.js';
// Record and replay of tool calls (a folder with index.jsonl and checksummed files)
export {
  type CallKey,
  callKey,
  formatRecordingStats,
  RECORD_MODES,
  RECORDING_INDEX,
  type RecordedFile,
  type RecordedHandlerOptions,
  type RecordedToolCall,
  type RecordingStats,
  type RecordMode,
  recordedHandler,
  ToolRecording,
} from './record/index.js';
export {
  SANDBOX_DEBIAN_PACKAGES,
  SANDBOX_ISOLATION_ENV,
  type SandboxIsolation,
  type SandboxLimits,
  SandboxLimitsSchema,
  type SandboxOptions,
  SandboxOptionsSchema,
} from './sandbox/config.js';
export { describeRunFailure } from './sandbox/describe.js';
// Running Python code's `solution()` in the sandbox: its value as text, or its figure as a PNG
export {
  type PythonSolutionOptions,
  pythonSolutionProgram,
  runPythonSolution,
  type SolutionKind,
  type SolutionOutcome,
} from './sandbox/python-solution.js';
export {
  type PythonRunRequest,
  type PythonRunResult,
  PythonSandbox,
  type SandboxBounds,
  type SandboxDeps,
} from './sandbox/sandbox.js';
export {
  type OfflineSearchOptions,
  offlineSearchProvider,
} from './search/offline.js';
export {
  type FormatSearchOptions,
  formatSearchResults,
  type SearchProvider,
  type SearchResults,
  SearchResultsSchema,
} from './search/results.js';
export { SERPER_BASE_URL, type SerperOptions, serperSearchProvider } from './search/serper.js';
export {
  type ExecutableTool,
  type ToolHandlerOptions,
  type ToolRunContext,
  ToolUnavailableError,
  toolHandler,
} from './tool.js';
