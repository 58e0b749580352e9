import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Pins the layering of docs/architecture (README diagram): every relative import from one
 * domain folder into another must follow an allowed arrow, and must go through that domain's
 * `index.js` (no reaching into another domain's private files). Benchmarks are plugins: the core
 * never imports src/benchmarks/ (only src/index.ts and the CLI's program read the one built-in list,
 * src/benchmarks/builtin.ts), and benchmarks/<x> never imports benchmarks/<y>.
 */
const EVERY_CORE_DOMAIN_BELOW_CLI = [
  'plugins',
  'openapi',
  'viewer',
  'reports',
  'mcp',
  'tools',
  'harness',
  'sft',
  'tasks',
  'agents',
  'retrieval',
  'exec',
  'models',
  'apps',
  'plan',
  'catalog',
  'shared',
] as const;

const ALLOWED: Record<string, readonly string[]> = {
  shared: [],
  catalog: ['shared'],
  plan: ['catalog', 'shared'],
  apps: ['catalog', 'plan', 'shared'],
  models: ['shared'],
  retrieval: ['catalog', 'plan', 'models', 'shared'],
  exec: ['plan', 'apps', 'catalog', 'shared'],
  tools: ['apps', 'models', 'retrieval', 'catalog', 'shared'],
  agents: ['models', 'retrieval', 'exec', 'plan', 'catalog', 'shared'],
  tasks: ['agents', 'tools', 'retrieval', 'exec', 'models', 'plan', 'apps', 'catalog', 'shared'],
  plugins: ['sft', 'tasks', 'tools', 'retrieval', 'plan', 'apps', 'catalog', 'shared'],
  mcp: ['agents', 'tools', 'retrieval', 'exec', 'models', 'plan', 'apps', 'catalog', 'shared'],
  openapi: ['mcp', 'apps', 'catalog', 'shared'],
  sft: ['tasks', 'agents', 'retrieval', 'models', 'plan', 'catalog', 'shared'],
  harness: ['plugins', 'tasks', 'agents', 'models', 'plan', 'catalog', 'shared'],
  reports: ['harness', 'plugins', 'tasks', 'retrieval', 'catalog', 'shared'],
  viewer: ['reports', 'harness', 'plugins', 'tasks', 'shared'],
  test: ['models', 'agents', 'plan', 'catalog', 'shared'],
  // the CLI sits on every core domain; a benchmark may use all of them too (its commands use cli's helpers)
  cli: EVERY_CORE_DOMAIN_BELOW_CLI,
  benchmarks: ['cli', ...EVERY_CORE_DOMAIN_BELOW_CLI, 'test'],
};

/** Besides src/index.ts, the one core file that reads the one list of built-in plugins. */
const READS_BUILTIN_LIST = new Set<string>(['cli/program.ts']);

const root = import.meta.dirname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === '__fixtures__' ? [] : sourceFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

const repo = join(root, '..');

/** Every .ts file of src, perf, scripts and examples (tests and fixtures included). */
function everyRepoTs(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : walk(p);
      return p.endsWith('.ts') ? [p] : [];
    });
  return ['src', 'perf', 'scripts', 'examples']
    .map((d) => join(repo, d))
    .filter(existsSync)
    .flatMap(walk);
}

/** Source text without its comments (a URL's `//` inside a string stays). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

describe('architecture', () => {
  it('imports point only down the layers, through each domain index', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(root)) {
      const rel = relative(root, file).split('/');
      if (rel.length < 2) continue; // src/index.ts re-exports everything
      const from = rel[0]!;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/from '(\.\.?\/[^']+)'/g)) {
        const target = relative(root, join(file, '..', m[1]!)).split('/');
        const to = target[0]!;
        if (to === from) {
          if (from === 'benchmarks' && rel.length > 2 && target.length > 2 && rel[1] !== target[1])
            violations.push(`${rel.join('/')} → ${target.join('/')} (one benchmark imports another)`);
          continue;
        }
        if (to === 'benchmarks') {
          if (READS_BUILTIN_LIST.has(rel.join('/')) && target.join('/') === 'benchmarks/builtin.js') continue;
          violations.push(`${rel.join('/')} → ${target.join('/')} (the core never imports a benchmark)`);
          continue;
        }
        if (from === 'benchmarks' && (to === 'cli' || to === 'test')) continue; // plugin commands use cli's helpers
        if (!ALLOWED[from]) violations.push(`${rel.join('/')}: folder "${from}" has no layering rule`);
        else if (!ALLOWED[from]!.includes(to))
          violations.push(`${rel.join('/')} → ${target.join('/')} (${from} may not import ${to})`);
        else if (
          !(target.length === 2 && target[1] === 'index.js') &&
          !(to === 'benchmarks' && target.length === 3 && target[2] === 'index.js')
        )
          violations.push(`${rel.join('/')} → ${target.join('/')} (import through ${to}/index.js)`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('names benchmarks only under src/benchmarks/ (code, not comments; src/index.ts reads the built-in list)', () => {
    const benchmarkName = /appbench|metabench|shortcut|toolbench|\bgta|Gta|GTA|\bsgd|Sgd|SGD/i;
    const naming = sourceFiles(root)
      .map((f) => relative(root, f))
      .filter((f) => !f.startsWith('benchmarks/') && f !== 'index.ts')
      .filter((f) => benchmarkName.test(withoutComments(readFileSync(join(root, f), 'utf8'))));
    expect(naming).toEqual([]);
  });

  it('uses the public AI SDK only: nothing imports `ai/internal` (undocumented, renamed in ai 7)', () => {
    const internal = /(?:from\s*|import\s*\(\s*|require\s*\(\s*)['"]ai\/internal['"]/;
    const importers = everyRepoTs()
      .filter((f) => internal.test(readFileSync(f, 'utf8')))
      .map((f) => relative(repo, f));
    expect(importers).toEqual([]);
  });

  it('comments cite files of the repository: no `specs/*.md`, which is not in it (its facts are in docs/)', () => {
    const outside = /(?:^|[^\w/.-])(?:\.\.\/shared\/)?specs\/[\w-]+\.md/;
    const citing = everyRepoTs()
      .filter((f) => outside.test(readFileSync(f, 'utf8')))
      .map((f) => relative(repo, f));
    expect(citing).toEqual([]);
  });
});

/** Names each `index.ts` exports, read from its `export { … } from` lists (`type` markers dropped). */
function exportedNames(indexFile: string): Set<string> {
  const text = readFileSync(join(root, indexFile), 'utf8');
  const names = new Set<string>();
  // `export * from './x/index.js'` gathers another curated entry as it is
  for (const m of text.matchAll(/export \* from '(\.\.?\/.*)\.js'/g))
    for (const n of exportedNames(join(dirname(indexFile), `${m[1]}.ts`))) names.add(n);
  for (const m of text.matchAll(/export (?:type )?\{([^}]*)\}/g))
    for (const item of m[1]!.split(',')) {
      const name = item.replace(/^\s*type\s+/, '').trim();
      if (name) names.add(name);
    }
  return names;
}

const indexFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === '__fixtures__' ? [] : indexFiles(p);
    return name === 'index.ts' ? [relative(root, p)] : [];
  });

/** package.json `exports`: subpath (`.`, `./catalog`, …) → the source entry it is built from. */
function packageEntries(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string; default: string }>;
  };
  return new Map(
    Object.entries(pkg.exports).map(([sub, target]) => [
      sub,
      target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'),
    ]),
  );
}

/** The root's `export { … } from './…'` lists: each source module and the names taken from it. */
function rootLists(): Array<{ from: string; names: string[] }> {
  const text = readFileSync(join(root, 'index.ts'), 'utf8');
  return [...text.matchAll(/export (?:type )?\{([^}]*)\} from '\.\/([^']+)\.js'/g)].map((m) => ({
    from: `${m[2]}.ts`,
    names: m[1]!
      .split(',')
      .map((item) => item.replace(/^\s*type\s+/, '').trim())
      .filter(Boolean),
  }));
}

/** The one list of built-in plugins: the root may export it although it is no domain entry. */
const BUILTIN_LIST = 'benchmarks/builtin.ts';

describe('package entries', () => {
  it('list their names: `export *` only gathers a curated child entry (agents/baseline)', () => {
    const star = indexFiles(root).flatMap((f) =>
      [...readFileSync(join(root, f), 'utf8').matchAll(/export \* from '([^']*)'/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^\.\/[a-z-]+\/index\.js$/.test(target) || f === 'index.ts')
        .map((target) => `${f}: export * from '${target}'`),
    );
    expect(star).toEqual([]);
  });

  it('apiary (the root) exports at most 150 names, each taken from a domain entry by name', () => {
    const main = exportedNames('index.ts');
    expect(main.size).toBeGreaterThan(100);
    expect(main.size).toBeLessThanOrEqual(150);
    // every export of the root is one of the lists below (no `export *`, no private file)
    const listed = rootLists().flatMap((l) => l.names);
    expect(listed.length).toBe(main.size);
    const text = readFileSync(join(root, 'index.ts'), 'utf8');
    expect(text.match(/^export /gm)?.length).toBe(rootLists().length);
  });

  it('every root name is also in its domain subpath (`apiary/<domain>` exports it)', () => {
    const entries = new Map([...packageEntries()].map(([sub, file]) => [file, sub]));
    const wrong = rootLists().flatMap(({ from, names }) => {
      if (from === BUILTIN_LIST) return [];
      const sub = entries.get(from);
      if (!sub) return [`${from}: no package.json subpath is built from it`];
      const there = exportedNames(from);
      return names.filter((n) => !there.has(n)).map((n) => `${n}: not exported by ${sub} (${from})`);
    });
    expect(wrong).toEqual([]);
  });

  it('one subpath per domain and per benchmark: every domain entry is in package.json exports', () => {
    const entries = packageEntries();
    const built = new Set(entries.values());
    const domainEntries = indexFiles(root).filter(
      (f) => f.split('/').length === 2 || (f.startsWith('benchmarks/') && f.split('/').length === 3),
    );
    expect(domainEntries.filter((f) => !built.has(f))).toEqual([]);
    // a benchmark's subpath is its name (`apiary/gta`); a domain's is its folder (`apiary/exec`)
    for (const [sub, file] of entries) {
      if (sub === '.') expect(file).toBe('index.ts');
      else expect(file.replace(/^benchmarks\//, '')).toBe(`${sub.slice(2)}/index.ts`);
    }
  });

  it('a domain entry re-exports every name of its sub-entries (agents/baseline, tools/record)', () => {
    const missing = indexFiles(root)
      .filter((f) => f.split('/').length === 3 && !f.startsWith('benchmarks/'))
      .flatMap((sub) => {
        const parent = exportedNames(`${sub.split('/')[0]}/index.ts`);
        return [...exportedNames(sub)].filter((n) => !parent.has(n)).map((n) => `${sub}: ${n}`);
      });
    expect(missing).toEqual([]);
  });
});
