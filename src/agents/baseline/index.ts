export * from './baseline-agent.js';
export * from './fill-slots.js';
export * from './select-apis.js';
export * from './slot-patterns.js';
