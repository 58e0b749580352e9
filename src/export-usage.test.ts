import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExportUsage } from './export-usage.js';

/**
 * Deliberate public API that only users call: exported although no file of src, perf, examples or
 * scripts imports it. Each entry says why; the list only shrinks.
 */
const USER_ONLY_API: Record<string, string> = {
  'src/catalog/sources.ts registerCatalogSource':
    'a program registers a catalog of its own without a plugin (docs/catalogs.md)',
  'src/tasks/solver.ts Scorer':
    "the type of a task's scorer, for users writing their own task (docs/harness.md)",
  'src/harness/sample-runner.ts ModelRecipe': 'the model part of an evaluate() recipe, for library callers',
  'src/harness/sample-runner.ts ModelRecipeSchema':
    'validates the model part of a recipe a program reads from a file',
  'src/harness/sample-runner.ts parseTaskRecipe':
    'checks a recipe a program reads from a file before evaluate()',
  'src/harness/sample-runner.ts TaskRecipeInputSchema':
    'the recipe as evaluate() callers write it (defaults filled in)',
  'src/tasks/registry.ts registerTask': 'registers a task without a plugin (docs/harness.md)',
  'src/models/resolve-model.ts resolveModel':
    'an endpoint and model id as an AI SDK model, for library users (the CLI calls resolveModelSetup)',
  'src/benchmarks/builtin.ts BUILTIN_PLUGINS':
    'the one list of built-in plugins, for a program that picks some',
  'src/benchmarks/gta/tools/tool-worker.ts default':
    'the GTA tool thread entry: the worker pool loads the file by URL and calls its default export',
};

describe('exports', () => {
  const usage = new ExportUsage(join(import.meta.dirname, '..'));
  const unused = usage.unused().map((o) => `${o.file} ${o.name}`);

  it('no name is exported that nothing outside its file uses (besides the documented user-only API)', () => {
    expect(unused.filter((u) => !(u in USER_ONLY_API))).toEqual([]);
  });

  it('each user-only entry is still exported and still unused inside the repository', () => {
    expect(Object.keys(USER_ONLY_API).filter((k) => !unused.includes(k))).toEqual([]);
  });

  it('counts a name used through an entry, a dynamic import and a public signature', () => {
    // runAgent's options type is named by its callers only through runAgent's signature
    expect(unused).not.toContain('src/agents/runtime/run-agent.ts RunAgentOptions');
    // appBenchDefinition is read by the plugin's lazy `(await import('./register.js')).appBenchDefinition`
    expect(unused).not.toContain('src/benchmarks/appbench/register.ts appBenchDefinition');
    // dispatchCall reaches its users through exec/index.ts and the package root
    expect(usage.origin('src/index.ts', 'dispatchCall', new Set())).toEqual({
      file: 'src/exec/dispatch-call.ts',
      name: 'dispatchCall',
    });
  });
});
