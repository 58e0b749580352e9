/**
 * Executable tools: GTA's 14 tools (OCR, Calculator, sandboxed Python Solver/Plot, image drawing,
 * search, vision and image-generation endpoints), each runnable through `dispatchCall` as an app.
 * @module
 */

export { plotTool } from './gta/plot.js';
export { type SolutionKind, stripMarkdownCode } from './gta/python-solution.js';
export { GTA_PYTHON_TIMEOUT_MS, type PythonToolOptions, solverTool } from './gta/solver.js';
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
export {
  type PythonRunRequest,
  type PythonRunResult,
  PythonSandbox,
  type SandboxDeps,
  type SandboxFile,
  type SandboxLimitHit,
} from './sandbox/sandbox.js';
export {
  type ExecutableTool,
  type ToolHandlerOptions,
  type ToolRunContext,
  toolHandler,
} from './tool.js';
