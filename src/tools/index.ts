/**
 * Executable tools: GTA's 14 tools (OCR, Calculator, sandboxed Python Solver/Plot, image drawing,
 * search, vision and image-generation endpoints), each runnable through `dispatchCall` as an app.
 * @module
 */
export {
  type ExecutableTool,
  type ToolHandlerOptions,
  type ToolRunContext,
  toolHandler,
} from './tool.js';
