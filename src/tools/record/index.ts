export { type CallKey, callKey } from './call-key.js';
export { type RecordedHandlerOptions, recordedHandler } from './recorded-handler.js';
export {
  formatRecordingStats,
  RECORD_MODES,
  RECORDING_INDEX,
  type RecordedFile,
  type RecordedToolCall,
  type RecordingStats,
  type RecordMode,
  ToolRecording,
} from './recording.js';
