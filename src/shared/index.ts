export * from './download.js';
export * from './errors.js';
export * from './file-hash.js';
export * from './json-file.js';
export * from './random.js';
export * from './zod-issues.js';
