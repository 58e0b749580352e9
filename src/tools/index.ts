/**
 * Executable tools: GTA's 14 tools (OCR, Calculator, sandboxed Python Solver/Plot, image drawing,
 * search, vision and image-generation endpoints), each runnable through `dispatchCall` as an app.
 * @module
 */

// GTA's tools: OCR (tesseract.js), Calculator (mathjs), DrawBox and AddText (jimp)
export { addTextTool, placeText, type TextPlacement } from './gta/add-text.js';
export { calculate, calculatorTool } from './gta/calculator.js';
export { boxLineWidth, drawBoxTool } from './gta/draw-box.js';
export { parseBbox } from './gta/image-args.js';
export {
  bundledEnglishLangPath,
  formatOcrLines,
  type OcrLine,
  type OcrTool,
  type OcrToolOptions,
  ocrTool,
} from './gta/ocr.js';
// The registry: every GTA tool by name, its status, its app handlers for dispatchCall
export {
  disposeTools,
  GTA_TOOL_NAMES,
  type GtaToolHandlersOptions,
  type GtaToolsConfig,
  gtaTool,
  gtaToolHandlers,
  gtaTools,
  toolStatus,
  unavailableTool,
} from './gta/registry.js';
// Record and replay of tool calls (a folder with index.jsonl and checksummed files)
export {
  type CallKey,
  callKey,
  formatRecordingStats,
  RECORD_MODES,
  RECORDING_FILES,
  RECORDING_INDEX,
  type RecordedFile,
  type RecordedHandlerOptions,
  type RecordedToolCall,
  RecordedToolCallSchema,
  type RecordingStats,
  type RecordMode,
  recordedHandler,
  ToolRecording,
} from './record/index.js';
export {
  type ExecutableTool,
  type ToolHandlerOptions,
  type ToolRunContext,
  ToolUnavailableError,
  toolHandler,
} from './tool.js';
