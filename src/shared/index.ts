export * from './download.js';
export * from './errors.js';
export * from './json-file.js';
export * from './python-text.js';
export * from './random.js';
export * from './stable-json.js';
export * from './zod-issues.js';
