import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toAiSdkTools } from '../../agents/index.js';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';
import { loadCatalog } from '../load-catalog.js';
import { auditOpenAiTools } from './__fixtures__/openai-check.js';
import { toOpenAiTools } from './tool-definitions.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const dataDir = resolve(process.cwd(), '../shared/data');

// Issue 26 item 4. Before: 977 of 46,802 rejected (920 descriptions over 1,024 characters, 57 APIs with a
// repeated `required` entry), 46,799 distinct names, `toAiSdkTools` 46,799 tools.
describe('ToolBench as OpenAI tool definitions', () => {
  const { apis } = loadCatalog('toolbench', { dataDir });
  const clean = {
    definitions: 46802,
    names: 46802,
    rejected: 0,
    violations: [],
    invalidSchemas: [],
    invalidSchemaCount: 0,
  };

  it('every definition passes, plain and strict, one distinct name per API', () => {
    expect(apis).toHaveLength(46802);
    expect(auditOpenAiTools(toOpenAiTools(apis))).toEqual(clean);
    expect(auditOpenAiTools(toOpenAiTools(apis, { strict: true }))).toEqual(clean);
  });

  it('toAiSdkTools returns one tool per API', () => {
    expect(Object.keys(toAiSdkTools(apis))).toHaveLength(46802);
  });
});
