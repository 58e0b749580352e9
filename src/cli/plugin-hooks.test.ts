import { describe, expect, it } from 'vitest';
import { type BenchmarkPlugin, registerPlugin } from '../plugins/index.js';
import { ApiaryError } from '../shared/index.js';
import { runCliInProcess } from './__fixtures__/run-cli-in-process.js';
import { scoreDescription, toolsDescription } from './plugin-help.js';
import { cliPlugins, commandEntries } from './program.js';

/** A benchmark of a user's own: one command, a scorer, a download and a tool set, all in plugin hooks. */
const toy: BenchmarkPlugin = {
  name: 'toy',
  description: 'a toy benchmark',
  commands: [
    {
      name: 'toy',
      usage: '[options]',
      description: 'toy commands',
      after: 'tasks',
      register: async () => (program) => {
        program
          .command('toy')
          .description('toy commands')
          .option('--loud', 'shout')
          .action((flags: { loud?: boolean }) => {
            process.stdout.write(flags.loud ? 'TOY RAN\n' : 'toy ran\n');
          });
      },
    },
  ],
  scorers: [
    {
      task: 'toy',
      help: { summary: 'exact match', data: 'the toy folder', mode: 'strict | lenient' },
      options: [{ flags: '--toy-level <n>', description: 'toy: how strict' }],
      load: async () => async (flags) => {
        process.stdout.write(`toy scored ${flags.predictions} at level ${String(flags.toyLevel)}\n`);
      },
    },
  ],
  downloads: [
    {
      name: 'toy',
      files: ['toy.json'],
      load: async () => async (flags) => {
        process.stdout.write(`toy pulled, pins ${JSON.stringify(flags.sha256)}\n`);
      },
    },
  ],
  dataBuilds: [
    {
      name: 'toy',
      description: 'toy data from toy dialogues',
      options: [{ flags: '--size <n>', description: 'how many' }],
      load: async () => async (flags) => {
        process.stdout.write(`toy built ${flags.size}\n`);
      },
    },
  ],
  toolsets: [
    {
      catalog: 'toy',
      label: 'Toy',
      catalogFile: 'toy/tools.json',
      examples: ['Echo'],
      load: async () => ({
        list: () => [{ name: 'Echo', category: 'misc', status: 'ready' }],
        open: () => ({ handlers: () => [], close: async () => {} }),
      }),
    },
  ],
};

cliPlugins(); // the built-in plugins first, as on any command line
registerPlugin(toy);

const apiary = (...args: string[]) => runCliInProcess(args);

describe("a plugin's CLI hooks", () => {
  it('places its command after the one it names, shown in the root help and run when asked for', async () => {
    expect(commandEntries().map((e) => e.name)).toEqual([
      'catalog',
      'plan',
      'tasks',
      'toy',
      'eval',
      'report',
      'run',
      'apps',
      'sft',
      'score',
      'data',
      'retrieve',
      'ask',
      'mcp',
      'shortcuts',
      'model',
      'tools',
      'gta',
      'view',
      'worker',
    ]);
    const help = await apiary('--help');
    expect(help.stdout).toContain('\n  toy [options]               toy commands\n');
    expect(await apiary('toy', '--loud')).toMatchObject({ code: 0, stdout: 'TOY RAN\n' });
  });

  it('may not take the name of a command apiary has', () => {
    const clash: BenchmarkPlugin = {
      name: 'clash',
      description: 'takes a core name',
      commands: [{ name: 'score', usage: '', description: 'x', register: async () => () => {} }],
    };
    expect(() => commandEntries([...cliPlugins(), clash])).toThrow(
      new ApiaryError('USAGE', 'plugin "clash": command "score" is already an apiary command'),
    );
  });

  it('adds its words to the help of core commands', async () => {
    expect(scoreDescription(cliPlugins())).toBe(
      're-score saved predictions without calling a model (appbench: official and corrected; toy: exact match)',
    );
    expect(toolsDescription(cliPlugins())).toBe(
      "GTA's and Toy's executable tools: list them, call one by hand",
    );
    const score = await apiary('score', '--help');
    expect(score.stdout).toContain('--toy-level <n>');
    expect(score.stdout.replace(/\s+/g, ' ')).toContain(
      '--mode <mode> appbench, shortcuts: official | corrected | both; gta: step | e2e; toy: strict | lenient (default: "both")',
    );
  });

  it('scores its predictions with its own scorer, its own flags included', async () => {
    expect(await apiary('score', 'toy', '-p', 'preds.jsonl', '--toy-level', '3')).toMatchObject({
      code: 0,
      stdout: 'toy scored preds.jsonl at level 3\n',
    });
  });

  it('pulls its data, the --sha256 pins checked against its files first', async () => {
    const hash = 'AB'.repeat(32);
    expect(await apiary('data', 'pull', 'toy', '--sha256', `toy.json=${hash}`)).toMatchObject({
      code: 0,
      stdout: `toy pulled, pins {"toy.json":"${hash.toLowerCase()}"}\n`,
    });
    const wrong = await apiary('data', 'pull', 'toy', '--sha256', `test_ss.json=${hash}`);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(
      `error [USAGE] --sha256 must be FILE=HASH with FILE one of toy.json (got "test_ss.json=${hash}")\n`,
    );
  });

  it('builds its data with its own flags under `data build`, beside the built-in builders', async () => {
    expect(await apiary('data', 'build', 'toy', '--size', '3')).toMatchObject({
      code: 0,
      stdout: 'toy built 3\n',
    });
    const help = await apiary('data', 'build', '--help');
    expect(help.stdout).toMatch(/appbench \[options\][\s\S]*toy \[options\]\s+toy data from toy dialogues/);
  });

  it('lists its tools after the built-in ones', async () => {
    const r = await apiary('tools', 'list', '--json');
    const rows = JSON.parse(r.stdout) as Array<{ name: string }>;
    expect(rows.length).toBe(15);
    expect(rows.at(-1)).toEqual({ name: 'Echo', category: 'misc', status: 'ready' });
  });
});
