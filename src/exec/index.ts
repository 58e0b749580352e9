/**
 * Plan execution: runs a plan graph against app handlers in parallel with permission
 * isolation, approvals of transactional calls, user/system inputs and a JSONL trace. Subpath
 * `apiary/exec`.
 * @module
 */

// Approval of transactional calls
export {
  type ApprovalDecision,
  type ApprovalHandler,
  type ApprovalRequest,
  approveWith,
  askOnTerminal,
  autoApprove,
  denyAll,
  oneAtATime,
  serialQueue,
} from './approval.js';
// Argument checks against the catalog (the rules plan validation uses)
export { type ArgumentIssue, argumentIssues } from './call-arguments.js';
// What a call returns: content parts (text, JSON, rows, image, file) or a typed error
export {
  type CallError,
  type CallErrorCode,
  type CallOutcome,
  type ContentPart,
  type ContentResult,
  contentToText,
  describeCallError,
  isContentResult,
  toContent,
} from './call-result.js';
// Injectable clock and sleep
export { type Clock, sleepFor } from './clock.js';
// One call at a time: catalog lookup, argument checks, permission scope, approval, handler
export {
  type AppRegistry,
  appRegistry,
  type CallRequest,
  type DispatchContext,
  dispatchCall,
  isTransactionalCall,
} from './dispatch-call.js';
// Executing a plan: parallel, permission-checked, traced
export {
  type ExecuteOptions,
  type ExecutionResult,
  executePlan,
  type RunStatus,
  type StepError,
  type StepErrorCode,
  type StepResult,
  type StepStatus,
} from './execute-plan.js';
// Fake app handlers for tests and benchmarks
export { type FakeHandlerOptions, fakeHandlers, type RecordedCall } from './fake-handlers.js';
// Questions to the user and system inputs (clipboard, date, shared input, device)
export {
  type AskProvider,
  type AskQuestion,
  askUserOnTerminal,
  type DeviceDetails,
  type InputProviders,
  type SystemInputOptions,
  type SystemInputProvider,
  scriptedAnswers,
  systemInputs,
} from './inputs.js';
// Choosing the outputs a step returns
export { type OutputSlot, resultRows, selectOutputs } from './step-outputs.js';
// The JSONL trace: write, read, repair
export {
  assertTraceFile,
  jsonlTrace,
  readTrace,
  repairTrace,
  type TraceEvent,
  type TraceRepair,
  type TraceSink,
} from './trace.js';
