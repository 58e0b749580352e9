import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { PluginRegistry } from '../plugins/index.js';
import { getSolver, TaskRegistry } from './registry.js';
import { defineSolver, sampleSolver } from './solver.js';
import type { TaskDefinition } from './task.js';
import { describeOptions, parseOptionAssignments, routeOptions, validateOptions } from './task-options.js';

/** A definition that is never loaded: only its names and schemas matter here. */
function def(name: string, extra: Partial<TaskDefinition> = {}): TaskDefinition {
  return {
    name,
    description: `${name} task`,
    version: '1',
    options: z.object({
      split: z.enum(['dev', 'test']).default('dev').describe('which split'),
      groups: z.array(z.string()).min(1).nullable().default(null),
    }),
    solvers: {
      greedy: defineSolver({
        name: 'greedy',
        description: 'greedy',
        args: z.object({ shots: z.number().int().min(0).default(0), verbose: z.boolean().default(false) }),
        needsModel: true,
        create: () => sampleSolver(() => Promise.reject(new Error('not solved in this test'))),
      }),
      rules: defineSolver({
        name: 'rules',
        description: 'rules',
        args: z.object({}),
        needsModel: false,
        create: () => sampleSolver(() => Promise.reject(new Error('not solved in this test'))),
      }),
    },
    defaultSolver: 'greedy',
    noModelSolver: 'rules',
    load: () => Promise.reject(new Error('not loaded in this test')),
    summarize: () => ({}),
    metrics: () => ({}),
    ...extra,
  };
}

describe('TaskRegistry', () => {
  it('finds tasks by name and lists them sorted', () => {
    const r = new TaskRegistry();
    r.register(def('zeta'));
    r.register(def('alpha'));
    expect(r.get('zeta').description).toBe('zeta task');
    expect(r.list().map((d) => d.name)).toEqual(['alpha', 'zeta']);
  });

  it('an unknown task is NOT_FOUND listing the known names', () => {
    const r = new TaskRegistry();
    r.register(def('alpha'));
    r.register(def('beta'));
    expect(() => r.get('gamma')).toThrow('unknown task "gamma" (known: alpha, beta)');
    try {
      r.get('gamma');
    } catch (e) {
      expect((e as { code: string }).code).toBe('NOT_FOUND');
    }
  });

  it('refuses duplicates, reserved names and solvers that do not exist', () => {
    const r = new TaskRegistry();
    r.register(def('alpha'));
    expect(() => r.register(def('alpha'))).toThrow('task "alpha" is already registered');
    expect(() => r.register(def('report'))).toThrow('invalid task name "report"');
    expect(() => r.register(def('all'))).toThrow('invalid task name "all"'); // `apiary eval all`
    expect(() => r.register(def('beta', { defaultSolver: 'nope' }))).toThrow(
      'task "beta": solver "nope" is not among greedy, rules',
    );
    expect(() => getSolver(def('alpha'), 'beam')).toThrow(
      'task "alpha" has no solver "beam" (solvers: greedy, rules)',
    );
  });

  it('the built-ins register appbench, gta, shortcuts and toolbench-retrieval once', async () => {
    const plugins = registerBuiltinPlugins(registerBuiltinPlugins(new PluginRegistry()));
    const r = await plugins.loadTasks(await plugins.loadTasks(new TaskRegistry()));
    expect(r.names()).toEqual(['appbench', 'gta', 'shortcuts', 'toolbench-retrieval']);
    expect(Object.keys(r.get('gta').solvers)).toEqual(['react', 'native-tools', 'step']);
    expect(r.get('gta').sampling).toEqual({ temperature: 0.7, maxOutputTokens: 512 });
    const appbench = r.get('appbench');
    expect(Object.keys(appbench.solvers)).toEqual(['flat', 'hierarchical', 'baseline', 'tool-loop']);
    expect([appbench.defaultSolver, appbench.noModelSolver]).toEqual(['flat', 'baseline']);
    expect(appbench.sampling).toEqual({ temperature: 0, topP: 0, maxOutputTokens: 1024 });
    expect(Object.keys(r.get('toolbench-retrieval').solvers)).toEqual([
      'bm25-plain',
      'bm25',
      'bm25-tool',
      'bm25-fields',
      'embed',
      'hybrid',
      'trained',
      'trained-hybrid',
      'trained-fusion',
      'ranked',
      'dense',
      'dense-hybrid',
    ]);
  });
});

describe('task options', () => {
  const d = def('alpha');

  it('fills defaults and coerces command-line strings (numbers, booleans, comma lists)', () => {
    expect(validateOptions(d.options, {}, 'alpha')).toEqual({ split: 'dev', groups: null });
    expect(validateOptions(d.options, { split: 'test', groups: 'a, b' }, 'alpha')).toEqual({
      split: 'test',
      groups: ['a', 'b'],
    });
    expect(validateOptions(d.options, { groups: 'null' }, 'alpha')).toEqual({ split: 'dev', groups: null });
    expect(
      validateOptions(d.solvers.greedy!.options, { shots: '3', verbose: 'true' }, 'alpha solver greedy'),
    ).toEqual({ shots: 3, verbose: true });
  });

  it('a bad value names the option; an unknown key lists the options', () => {
    expect(() => validateOptions(d.solvers.greedy!.options, { shots: '-1' }, 'alpha solver greedy')).toThrow(
      /^alpha solver greedy option "shots": Too small: expected number to be >=0$/,
    );
    expect(() => validateOptions(d.solvers.greedy!.options, { shots: 'two' }, 'alpha solver greedy')).toThrow(
      'alpha solver greedy option "shots": Invalid input: expected number, received string',
    );
    expect(() => validateOptions(d.options, { split: 'train' }, 'alpha')).toThrow(
      'alpha option "split": Invalid option: expected one of "dev"|"test"',
    );
    expect(() => validateOptions(d.options, { splits: 'dev' }, 'alpha')).toThrow(
      'alpha has no option "splits" (options: split, groups)',
    );
  });

  it('routes --option pairs to the solver or the task (prefixes force a side)', () => {
    const pairs = parseOptionAssignments(['shots=2', 'split=test', 'task.groups=x,y', 'solver.verbose=true']);
    expect(routeOptions(d, 'greedy', pairs)).toEqual({
      task: { split: 'test', groups: 'x,y' },
      solver: { shots: '2', verbose: 'true' },
    });
    expect(() => routeOptions(d, 'rules', parseOptionAssignments(['shots=2']))).toThrow(
      'unknown option "shots" for alpha with solver rules (task options: split, groups; solver options: none)',
    );
    expect(() => parseOptionAssignments(['shots'])).toThrow('--option expects key=value, got "shots"');
  });

  it('describes options for `apiary tasks`', () => {
    expect(describeOptions(d.options)).toEqual([
      {
        name: 'split',
        type: 'one of dev | test',
        description: 'which split',
        default: 'dev',
        required: false,
      },
      { name: 'groups', type: 'list of string (comma-separated) | null', default: null, required: false },
    ]);
    expect(describeOptions(z.object({ file: z.string().min(1) }))).toEqual([
      { name: 'file', type: 'string', required: true },
    ]);
  });
});
