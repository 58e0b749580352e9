import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { grantedPath, readablePaths } from './file-access.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'apiary-file-access-')));
const granted = join(root, 'granted');
const secret = join(root, 'secret');
mkdirSync(join(granted, 'sub'), { recursive: true });
mkdirSync(secret);
writeFileSync(join(granted, 'a.png'), 'a');
writeFileSync(join(secret, 'key.png'), 'secret');
symlinkSync(join(secret, 'key.png'), join(granted, 'link.png'));
symlinkSync(secret, join(granted, 'secret-dir'));
symlinkSync(join(secret, 'gone.png'), join(granted, 'dangling.png'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const grants = readablePaths([granted]);
const refusal = (path: string) =>
  `DrawBox: image "${path}" is outside the folders this tool may read (grant more with --allow-dir)`;
const check = (path: string) => grantedPath('DrawBox', 'image', path, grants);
const outcome = (path: string) => {
  try {
    return { path: check(path) };
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
};

describe('grantedPath', () => {
  it('gives the real path of a file inside a grant, and of a missing one (the tool says "not found")', () => {
    expect(check(join(granted, 'a.png'))).toBe(join(granted, 'a.png'));
    expect(check(join(granted, 'sub', '..', 'a.png'))).toBe(join(granted, 'a.png'));
    expect(check(join(granted, 'missing.png'))).toBe(join(granted, 'missing.png'));
    expect(check(join(granted, 'no', 'such', 'dir.png'))).toBe(join(granted, 'no', 'such', 'dir.png'));
  });

  it('refuses everything outside with one message, whether it exists, is missing, a folder or unreadable', () => {
    const paths = [
      join(secret, 'key.png'), // exists
      join(secret, 'nope.png'), // missing
      secret, // a folder
      '/root/private/screenshot.png', // in a folder this user may not list
      '/etc/passwd',
      join(granted, '..', 'secret', 'key.png'), // `..` out of the grant
      join(granted, 'link.png'), // a symlink inside pointing out
      join(granted, 'secret-dir', 'key.png'), // through a linked folder, existing …
      join(granted, 'secret-dir', 'nope.png'), // … and missing
      join(granted, 'dangling.png'), // a symlink to a missing file outside
      `${granted}-sibling/a.png`, // a prefix of the grant's name is not the grant
    ];
    for (const path of paths)
      expect(outcome(path), path).toEqual({ code: 'PERMISSION_DENIED', message: refusal(path) });
  });

  it('grants single files exactly, and relative paths resolve from the working folder', () => {
    const one = readablePaths([join(secret, 'key.png')]);
    expect(grantedPath('OCR', 'image', join(secret, 'key.png'), one)).toBe(join(secret, 'key.png'));
    expect(() => grantedPath('OCR', 'image', join(secret, 'other.png'), one)).toThrow(/outside the folders/);
    expect(() => grantedPath('OCR', 'image', 'a.png', grants)).toThrow(`OCR: image "a.png" is outside`);
  });
});
