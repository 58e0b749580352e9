export * from './errors.js';
export * from './json-file.js';
export * from './zod-issues.js';
export * from './download.js';
