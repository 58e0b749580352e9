import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { PluginRegistry } from '../plugins/index.js';
import { defineSolver, sampleSolver, TaskRegistry } from '../tasks/index.js';
import { evaluate } from './evaluate.js';
import { importPluginModule, pluginsExportedBy } from './plugin-modules.js';

const MINI = resolve(import.meta.dirname, '../../examples/appbench-mini');
const BUILTIN = pathToFileURL(resolve(import.meta.dirname, '../benchmarks/builtin.ts')).href;
const tmp = () => mkdtempSync(join(tmpdir(), 'apiary-evaluate-'));

/** A one-sample task whose solver echoes the sample id, registered in code (no module). */
const echoPlugin = {
  name: 'echo-bench',
  description: 'echoes',
  tasks: [
    {
      name: 'echo',
      description: 'echo the id',
      load: async () => ({
        name: 'echo',
        description: 'echo the id',
        version: '1',
        options: z.object({ times: z.number().int().default(1) }),
        solvers: {
          echo: defineSolver({
            name: 'echo',
            description: 'echo',
            args: z.object({}),
            needsModel: false,
            create: () => sampleSolver(async (s: { id: string }) => ({ output: s.id })),
          }),
          llm: defineSolver({
            name: 'llm',
            description: 'asks a model',
            args: z.object({}),
            needsModel: true,
            create: () => async (state) => state,
          }),
        },
        defaultSolver: 'echo',
        load: async () => ({
          task: {
            name: 'echo',
            version: '1',
            dataset: [{ id: 'a' }],
            solver: sampleSolver(async (s: { id: string }) => ({ output: s.id })),
            scorer: (_s: unknown, o: { output: unknown }) => ({ ok: o.output === 'a' }),
            summarize: (scores: readonly { ok: boolean }[]) => ({ ok: scores.filter((s) => s.ok).length }),
          },
          dataSource: { path: 'inline', sha256: 'x' },
        }),
        summarize: (scores: readonly { ok: boolean }[]) => ({ ok: scores.filter((s) => s.ok).length }),
        metrics: (r: { ok: number }) => ({ ok: r.ok }),
      }),
    },
  ],
};

describe('plugin modules', () => {
  it('take the default export, a `plugin` export or a `plugins` list; anything else is no plugin', () => {
    const p = { name: 'x', description: 'd', tasks: [] };
    expect(pluginsExportedBy({ default: p })).toEqual([p]);
    expect(pluginsExportedBy({ plugin: p })).toEqual([p]);
    expect(pluginsExportedBy({ plugins: [p, { ...p, name: 'y' }] })?.map((q) => q.name)).toEqual(['x', 'y']);
    expect(pluginsExportedBy({ default: { name: 'x' } })).toBeNull();
    expect(pluginsExportedBy({ answer: 42 })).toBeNull();
  });

  it('are registered with their URL (what worker threads import again); errors name the module', async () => {
    const dir = tmp();
    const file = join(dir, 'mine.mjs');
    writeFileSync(file, "export const plugin = { name: 'mine', description: 'mine', tasks: [] };\n");
    const registry = new PluginRegistry();
    await importPluginModule(file, registry);
    expect(registry.moduleOf('mine')).toBe(pathToFileURL(file).href);
    await expect(importPluginModule(join(dir, 'none.mjs'), registry)).rejects.toThrow(
      `plugin module ${join(dir, 'none.mjs')}: no such file (${join(dir, 'none.mjs')})`,
    );
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, 'throw new Error("boom");\n');
    await expect(importPluginModule(broken, registry)).rejects.toMatchObject({
      code: 'USAGE',
      message: `plugin module ${broken} could not be imported: boom`,
    });
  });
});

describe('evaluate(recipe, options)', () => {
  beforeAll(() => {
    registerBuiltinPlugins();
  });

  it('fills the recipe in (no model: the no-model solver), runs it, and names the task plugin for workers', async () => {
    const result = await evaluate(
      { task: 'appbench', dataDir: MINI, limit: 1 },
      { outDir: join(tmp(), 'run') },
    );
    expect(result.recipe).toMatchObject({
      task: 'appbench',
      solver: 'baseline',
      taskOptions: { categories: null },
      model: null,
      seed: 0,
      dataDir: MINI,
      limit: 1,
      plugins: [BUILTIN],
    });
    expect(result.spec.solver.name).toBe('baseline');
    expect([result.ran, result.summary.records, result.stopReason]).toEqual([4, 4, null]);
  });

  it('refuses a bad recipe naming the field, a model-less run of a solver that needs one, and threads for a plugin registered in code', async () => {
    const plugins = new PluginRegistry();
    plugins.register(echoPlugin as never);
    const regs = { plugins, registry: new TaskRegistry() };
    await expect(evaluate({ task: 'echo', seed: -1 }, regs)).rejects.toMatchObject({
      code: 'USAGE',
      message: 'recipe field "seed": Too small: expected number to be >=0',
    });
    await expect(evaluate({ task: 'echo', taskOptions: { times: 'x' } }, regs)).rejects.toMatchObject({
      code: 'USAGE',
      message: 'echo option "times": Invalid input: expected number, received string',
    });
    await expect(evaluate({ task: 'echo', solver: 'llm' }, regs)).rejects.toMatchObject({
      code: 'USAGE',
      message: 'solver "llm" of echo needs a model: give the recipe a model (recipe.model)',
    });
    await expect(evaluate({ task: 'echo' }, { ...regs, workers: 2 })).rejects.toMatchObject({
      code: 'USAGE',
      message:
        'samples cannot run outside this thread: plugin "echo-bench" was registered in code, not from a module: name its module in recipe.plugins',
    });
    const ok = await evaluate({ task: 'echo' }, { ...regs, outDir: join(tmp(), 'echo') });
    expect(ok.summary.report).toEqual({ ok: 1 });
    expect(ok.recipe.taskOptions).toEqual({ times: 1 });
  });
});
