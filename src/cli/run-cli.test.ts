import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliCommand, ROOT, runCli, startCli } from './__fixtures__/run-cli.js';
import { runCliInProcess } from './__fixtures__/run-cli-in-process.js';

/* The shared CLI runner of the tests: what the child inherits, and what it cleans up. */

describe('cliCommand: the environment of a CLI under test', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });

  it('drops APIARY_*, XDG_*, API keys and FORCE_COLOR; sets NO_COLOR and a fresh HOME', () => {
    Object.assign(process.env, {
      APIARY_MODEL: 'leaked',
      APIARY_DATA: '/leaked',
      XDG_CACHE_HOME: '/leaked',
      OPENAI_API_KEY: 'k',
      SERPER_API_KEY: 'k',
      FORCE_COLOR: '3',
      HOME: '/home/someone',
      SOMETHING_ELSE: 'kept',
    });
    const { command, args, env } = cliCommand(['tasks']);
    expect(command).toBe(process.execPath);
    expect(args.slice(-2)).toEqual([join(ROOT, 'src', 'cli', 'main.ts'), 'tasks']);
    expect(Object.keys(env).filter((k) => /^(APIARY_|XDG_)|API_KEY$|^FORCE_COLOR$/.test(k))).toEqual([]);
    expect(env.NO_COLOR).toBe('1');
    expect(env.SOMETHING_ELSE).toBe('kept');
    expect(env.HOME).not.toBe('/home/someone');
    expect(env.HOME!.startsWith(join(tmpdir(), 'apiary-home-'))).toBe(true);
  });

  it('env sets (APIARY_* too) or removes a variable; home keeps the given HOME', () => {
    process.env.SOMETHING_ELSE = 'inherited';
    const { env } = cliCommand([], {
      env: { APIARY_MODEL: 'scripted', SOMETHING_ELSE: undefined },
      home: '/tmp/my-home',
    });
    expect(env.APIARY_MODEL).toBe('scripted');
    expect('SOMETHING_ELSE' in env).toBe(false);
    expect(env.HOME).toBe('/tmp/my-home');
  });
});

describe('startCli', { timeout: 30_000 }, () => {
  const version = `${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`;

  it('runs the CLI in cwd and removes the fresh HOME once it has exited', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'apiary-run-cli-cwd-'));
    const cli = startCli(['--version'], { cwd });
    expect(cli.child.spawnargs.at(-1)).toBe('--version');
    expect(existsSync(cli.home)).toBe(true);
    const r = await cli.done;
    expect([r.code, r.signal, r.stdout, r.stderr]).toEqual([0, null, version, '']);
    expect(existsSync(cli.home)).toBe(false);
  });

  it('keeps a HOME the test gave; closedStdout leaves stdout empty', async () => {
    const home = mkdtempSync(join(tmpdir(), 'apiary-run-cli-home-'));
    const cli = startCli(['--version'], { home, closedStdout: true });
    expect(cli.home).toBe(home);
    const r = await cli.done;
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(existsSync(home)).toBe(true);
  });
});

describe('runCliInProcess', { timeout: 30_000 }, () => {
  it('gives what runCli gives: exit code, stdout and stderr', async () => {
    for (const args of [
      ['--version'],
      ['catalog', 'list', '--catalog', 'appbench', '--app', 'Weather'],
      ['catalog', 'list', '--catalog', 'nope'],
      ['catalog', 'lst'],
      ['plan', 'validate', 'src/cli/__fixtures__/bad-plan.txt'],
    ])
      expect(await runCliInProcess(args), args.join(' ')).toEqual(await runCli(args));
  });

  it('runs in the clean environment, HOME and cwd of runCli, and gives back the test its own', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'apiary-run-cli-cwd-'));
    const home = mkdtempSync(join(tmpdir(), 'apiary-run-cli-home-'));
    process.env.APIARY_DATA = '/leaked';
    const before = { env: { ...process.env }, cwd: process.cwd(), exitCode: process.exitCode };
    try {
      // `plan validate` of a missing file names the path it looked for, resolved from the cwd
      const r = await runCliInProcess(['plan', 'validate', 'missing.txt'], {
        cwd,
        home,
        env: { APIARY_MODEL: 'm' },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('missing.txt');
      // the bundled catalog, not the caller's APIARY_DATA
      expect((await runCliInProcess(['catalog', 'list', '--catalog', 'appbench'])).code).toBe(0);
      expect({ env: { ...process.env }, cwd: process.cwd(), exitCode: process.exitCode }).toEqual(before);
      expect(existsSync(home)).toBe(true);
    } finally {
      delete process.env.APIARY_DATA;
    }
  });
});
