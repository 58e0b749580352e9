import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliCommand, ROOT } from './__fixtures__/run-cli.js';
import { buildFullProgram, buildProgram, commandEntries, commandNameIn } from './program.js';

const argv = (...args: string[]) => ['node', 'apiary', ...args];

describe('buildProgram', () => {
  it('finds the command a command line runs', () => {
    expect(commandNameIn(argv())).toBeUndefined();
    expect(commandNameIn(argv('--help'))).toBeUndefined();
    expect(commandNameIn(argv('--version'))).toBeUndefined();
    expect(commandNameIn(argv('catalog', 'list', '--json'))).toBe('catalog');
    expect(commandNameIn(argv('--debug', 'eval', 'appbench'))).toBe('eval');
    expect(commandNameIn(argv('help', 'run'))).toBe('run');
    expect(commandNameIn(argv('help'))).toBeUndefined();
  });

  it('shows the same root help as the program with every command file loaded', async () => {
    const full = await buildFullProgram();
    expect((await buildProgram(argv('--help'))).helpInformation()).toBe(full.helpInformation());
    expect((await buildProgram(argv('catalog', 'list'))).helpInformation()).toBe(full.helpInformation());
  });

  it('lists each command with the usage and description its register function declares', async () => {
    const full = await buildFullProgram();
    const help = full.createHelp();
    expect(commandEntries().map((c) => [`${c.name}${c.usage ? ` ${c.usage}` : ''}`, c.description])).toEqual(
      full.commands.map((c) => [help.subcommandTerm(c), c.description()]),
    );
  });

  it('registers the command it runs in full, the others as names only', async () => {
    const program = await buildProgram(argv('catalog', 'list'));
    const byName = new Map(program.commands.map((c) => [c.name(), c]));
    expect(byName.get('catalog')!.commands.map((c) => c.name())).toEqual([
      'list',
      'show',
      'export',
      'import',
    ]);
    expect(byName.get('eval')!.options).toEqual([]);
  });
});

/** The ES modules `apiary <args>` loads from the sources, as paths under the repository (or package names). */
function modulesLoadedBy(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-modules-'));
  try {
    const log = join(dir, 'modules.txt');
    const cmd = cliCommand(args, { home: dir, env: { APIARY_MODULE_LOG: log } });
    const hooks = pathToFileURL(join(ROOT, 'src/cli/__fixtures__/module-log.mjs')).href;
    const [, tsx, main, ...rest] = cmd.args;
    const r = spawnSync(cmd.command, ['--import', tsx!, '--import', hooks, main!, ...rest], {
      cwd: ROOT,
      env: cmd.env,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const root = `${pathToFileURL(ROOT).href}/`;
    // node_modules may be a link to a shared install elsewhere: packages are named by their folder
    return readFileSync(log, 'utf8')
      .split('\n')
      .flatMap((url) => {
        const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
        if (pkg) return [pkg[1]!];
        return url.startsWith(root) ? [url.slice(root.length).replace(/\?.*$/, '')] : [];
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What every command line loads of the benchmarks: their manifests, the small catalog loaders and eval flags they declare. */
const PLUGIN_MANIFEST_MODULES = [
  'src/benchmarks/appbench/catalog.ts',
  'src/benchmarks/appbench/categories.ts',
  'src/benchmarks/appbench/eval-flags.ts',
  'src/benchmarks/appbench/plugin.ts',
  'src/benchmarks/appbench/sgd-catalog.ts',
  'src/benchmarks/appbench/sgd-versions.ts',
  'src/benchmarks/builtin.ts',
  'src/benchmarks/gta/catalog.ts',
  'src/benchmarks/gta/eval-flags.ts',
  'src/benchmarks/gta/plugin.ts',
  'src/benchmarks/shortcutsbench/catalog.ts',
  'src/benchmarks/shortcutsbench/eval-flags.ts',
  'src/benchmarks/shortcutsbench/plugin.ts',
  'src/benchmarks/toolbench/catalog.ts',
  'src/benchmarks/toolbench/plugin.ts',
];

describe('apiary starts light', () => {
  it('--help loads the CLI shell, shared, the plugin manifests (their catalog loaders and eval flags) and the catalog domain: no command file, no other domain', () => {
    const loaded = [...new Set(modulesLoadedBy(['--help']))];
    const domains = new Set(loaded.filter((m) => m.startsWith('src/')).map((m) => m.split('/')[1]));
    // catalog sources are registered with the manifests so that `loadCatalog` stays synchronous
    expect([...domains].sort()).toEqual(['benchmarks', 'catalog', 'cli', 'plugins', 'shared']);
    expect(loaded.filter((m) => m.startsWith('src/benchmarks/')).sort()).toEqual(PLUGIN_MANIFEST_MODULES);
    expect(loaded.filter((m) => m.startsWith('src/cli/')).sort()).toEqual([
      'src/cli/command-list.ts',
      'src/cli/commands/tool-flags.ts',
      'src/cli/main.ts',
      'src/cli/options.ts',
      'src/cli/output.ts',
      'src/cli/plugin-help.ts',
      'src/cli/program.ts',
    ]);
    expect(loaded.filter((m) => !m.startsWith('src/')).sort()).toEqual(['commander', 'picocolors', 'zod']);
  });

  it('catalog list loads the catalog domain and the plugin manifests, not the model, viewer, MCP, tool or report stacks', () => {
    const loaded = new Set(modulesLoadedBy(['catalog', 'list']));
    const domains = new Set([...loaded].filter((m) => m.startsWith('src/')).map((m) => m.split('/')[1]));
    expect([...domains].sort()).toEqual(['benchmarks', 'catalog', 'cli', 'plugins', 'shared']);
    expect([...loaded].filter((m) => m.startsWith('src/benchmarks/')).sort()).toEqual(
      PLUGIN_MANIFEST_MODULES,
    );
    for (const heavy of [
      'vega',
      'hono',
      'jimp',
      '@modelcontextprotocol/sdk',
      '@opentelemetry/sdk-trace-base',
    ])
      expect(loaded.has(heavy), heavy).toBe(false);
  });
});
