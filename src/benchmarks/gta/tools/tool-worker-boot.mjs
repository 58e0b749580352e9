// The tool worker's entry when Apiary runs from its TypeScript sources (tsx, vitest): a worker
// thread does not inherit tsx's loader, so this registers it, then loads the real entry.
// From dist/, tool-threads.ts starts tool-worker.js directly and this file is not used.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// the ESM build of tsx's API sits beside the CommonJS one its `require` condition resolves to
const api = createRequire(import.meta.url)
  .resolve('tsx/esm/api')
  .replace(/\.cjs$/, '.mjs');
const { register } = await import(pathToFileURL(api).href);
register();
const entry = await import(new URL('./tool-worker.ts', import.meta.url).href);
export default entry.default;
