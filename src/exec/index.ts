export * from './approval.js';
export * from './clock.js';
export * from './execute-plan.js';
export * from './fake-handlers.js';
export * from './inputs.js';
export * from './step-outputs.js';
export * from './trace.js';
