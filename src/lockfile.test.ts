import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * `npm ci` refuses a lockfile that lacks an entry for any optional dependency of a locked package, even one built
 * for another platform (npm drops them when the lockfile is rewritten over an existing node_modules). A lockfile
 * `npm ci` refuses makes every clone run `npm install`, which rewrites it and marks every run spec "+dirty".
 */
interface LockedPackage {
  optionalDependencies?: Record<string, string>;
}

function missingOptionalEntries(lock: { packages: Record<string, LockedPackage> }): string[] {
  const locked = new Set(
    Object.keys(lock.packages).map((key) =>
      key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length),
    ),
  );
  const missing = new Set<string>();
  for (const [key, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (!locked.has(name)) missing.add(`${name} (optional dependency of ${key || 'the root'})`);
    }
  }
  return [...missing].sort();
}

describe('package-lock.json', () => {
  it('locks every optional dependency of every locked package, for all platforms, so `npm ci` accepts it', () => {
    const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
    expect(missingOptionalEntries(lock)).toEqual([]);
  });

  it("finds an optional platform binary the lockfile left out (the lockfile of 60040f0 lacked biome's)", () => {
    const lock = {
      packages: {
        '': {},
        'node_modules/@biomejs/biome': {
          optionalDependencies: { '@biomejs/cli-darwin-arm64': '2.6.8', '@biomejs/cli-linux-x64': '2.6.8' },
        },
        'node_modules/@biomejs/cli-linux-x64': {},
      },
    };
    expect(missingOptionalEntries(lock)).toEqual([
      '@biomejs/cli-darwin-arm64 (optional dependency of node_modules/@biomejs/biome)',
    ]);
  });

  it("matches the installed package.json's declared dependency ranges (npm ci's other refusal)", () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
    const root = lock.packages[''];
    expect(root.dependencies).toEqual(pkg.dependencies);
    expect(root.devDependencies).toEqual(pkg.devDependencies);
    expect(root.peerDependencies).toEqual(pkg.peerDependencies);
  });
});
