import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TaskRegistry } from './registry.js';
import {
  chain,
  createSolver,
  defineSolver,
  type Solver,
  sampleSolver,
  solveSample,
  withOutput,
  withStore,
} from './solver.js';
import type { TaskDefinition, TaskSample } from './task.js';

type Sample = TaskSample & { text: string };
const sample: Sample = { id: 's-1', text: 'hello' };

/** A step that appends its name to the store's log (and to the output). */
const step =
  (name: string): Solver<Sample, string> =>
  async (state) => {
    const log = [...((state.store.log as string[] | undefined) ?? []), name];
    return withOutput(withStore(state, { log }), {
      output: log.join(' → '),
      usage: { inputTokens: 10, outputTokens: 1 },
      modelCalls: 1,
    });
  };

describe('chain', () => {
  it('runs the solvers in order, each on the state the previous one returned; usage and calls add up', async () => {
    const solved = await solveSample(
      { name: 'toy', solver: chain(step('demos'), step('retrieve'), step('tool loop')) },
      sample,
      { seed: 0 },
    );
    expect(solved).toEqual({
      output: 'demos → retrieve → tool loop',
      usage: { inputTokens: 30, outputTokens: 3 },
      modelCalls: 3,
    });
  });

  it('a step that records nothing leaves usage and calls absent (as a no-model solver recorded them)', async () => {
    const only = sampleSolver<Sample, string>(async (s) => ({ output: s.text }));
    expect(await solveSample({ name: 'toy', solver: chain(only) }, sample, { seed: 0 })).toEqual({
      output: 'hello',
    });
  });

  it('a solver that leaves no output is an INTERNAL error naming the task and the sample', async () => {
    const nothing: Solver<Sample, string> = async (state) => withStore(state, { x: 1 });
    await expect(solveSample({ name: 'toy', solver: nothing }, sample, { seed: 0 })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: 'task "toy": the solver left no output for sample "s-1"',
    });
  });

  it('a throwing step stops the chain with its own error', async () => {
    const boom: Solver<Sample, string> = () => Promise.reject(new Error('endpoint failed'));
    const after = step('never');
    let ran = false;
    const spy: Solver<Sample, string> = async (s, ctx) => {
      ran = true;
      return after(s, ctx);
    };
    await expect(
      solveSample({ name: 'toy', solver: chain(step('a'), boom, spy) }, sample, { seed: 0 }),
    ).rejects.toThrow('endpoint failed');
    expect(ran).toBe(false);
  });
});

describe('defineSolver / createSolver', () => {
  const fewShot = defineSolver({
    name: 'few-shot',
    description: 'k demos, then one turn',
    args: z.object({
      shots: z.number().int().min(0).default(0),
      demos: z.enum(['same-app', 'random']).default('same-app'),
    }),
    needsModel: true,
    create: (args, env: { prefix: string }) =>
      sampleSolver<Sample, string>(async (s) => ({
        output: `${env.prefix}${args.shots}/${args.demos}/${s.text}`,
      })),
  });

  it('validates the arguments (strings coerced, defaults filled) and hands them and the environment to create', async () => {
    expect(fewShot.options).toBe(fewShot.args);
    const solver = createSolver(fewShot, { shots: '2' }, { prefix: '>' });
    expect((await solveSample({ name: 'toy', solver }, sample, { seed: 0 })).output).toBe(
      '>2/same-app/hello',
    );
  });

  it('a bad argument is a USAGE error naming the solver and the argument', () => {
    expect(() => createSolver(fewShot, { shots: -1 }, { prefix: '' })).toThrow(
      /^solver "few-shot" option "shots": Too small: expected number to be >=0$/,
    );
    expect(() => createSolver(fewShot, { demos: 'nearest' }, { prefix: '' })).toThrow(
      'solver "few-shot" option "demos": Invalid option: expected one of "same-app"|"random"',
    );
    expect(() => createSolver(fewShot, { k: 2 }, { prefix: '' })).toThrow(
      'solver "few-shot" has no option "k" (options: shots, demos)',
    );
    try {
      createSolver(fewShot, { shots: -1 }, { prefix: '' });
    } catch (e) {
      expect((e as { code: string }).code).toBe('USAGE');
    }
  });

  it('refuses a solver name the CLI cannot pass, and a task whose table files a solver under another name', () => {
    expect(() =>
      defineSolver({
        name: 'Few Shot',
        description: '',
        args: z.object({}),
        needsModel: false,
        create: () => step('x'),
      }),
    ).toThrow('invalid solver name "Few Shot" (lower-case letters, digits, dashes)');
    const def: TaskDefinition = {
      name: 'toy',
      description: 'toy',
      version: '1',
      options: z.object({}),
      solvers: { 'k-shot': fewShot },
      defaultSolver: 'k-shot',
      load: () => Promise.reject(new Error('not loaded')),
      summarize: () => ({}),
      metrics: () => ({}),
    };
    expect(() => new TaskRegistry().register(def)).toThrow(
      'task "toy": solver "few-shot" is registered as "k-shot"',
    );
  });
});
