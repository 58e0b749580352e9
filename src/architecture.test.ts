import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Pins the layering of docs/architecture (README diagram): every relative import from one
 * domain folder into another must follow an allowed arrow, and must go through that domain's
 * `index.js` (no reaching into another domain's private files). tasks/<x> never imports tasks/<y>.
 */
const ALLOWED: Record<string, readonly string[]> = {
  shared: [],
  catalog: ['shared'],
  plan: ['catalog', 'shared'],
  apps: ['catalog', 'plan', 'shared'],
  models: ['shared'],
  retrieval: ['catalog', 'plan', 'models', 'shared'],
  exec: ['plan', 'apps', 'catalog', 'shared'],
  agents: ['models', 'retrieval', 'exec', 'plan', 'catalog', 'shared'],
  tasks: ['agents', 'retrieval', 'exec', 'models', 'plan', 'apps', 'catalog', 'shared'],
  sft: ['tasks', 'agents', 'retrieval', 'models', 'plan', 'catalog', 'shared'],
  harness: ['tasks', 'agents', 'models', 'plan', 'catalog', 'shared'],
  test: ['models', 'agents', 'plan', 'catalog', 'shared'],
  cli: [
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
  ],
};

const root = import.meta.dirname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === '__fixtures__' ? [] : sourceFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
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
          if (from === 'tasks' && rel.length > 2 && target.length > 2 && rel[1] !== target[1])
            violations.push(`${rel.join('/')} → ${target.join('/')} (one benchmark imports another)`);
          continue;
        }
        if (!ALLOWED[from]) violations.push(`${rel.join('/')}: folder "${from}" has no layering rule`);
        else if (!ALLOWED[from]!.includes(to))
          violations.push(`${rel.join('/')} → ${target.join('/')} (${from} may not import ${to})`);
        else if (
          !(target.length === 2 && target[1] === 'index.js') &&
          !(to === 'tasks' && target.length === 3 && target[2] === 'index.js')
        )
          violations.push(`${rel.join('/')} → ${target.join('/')} (import through ${to}/index.js)`);
      }
    }
    expect(violations).toEqual([]);
  });
});
