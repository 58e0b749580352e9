import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/* `apiary view`: the real CLI in a child process, on a real AppBench tool-loop run folder. */

const ROOT = resolve(import.meta.dirname, '../../..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const RUN = join(ROOT, 'src', 'viewer', '__fixtures__', 'appbench-tool-loop');

function startCli(args: string[]) {
  const env = { ...process.env, NO_COLOR: '1' };
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'apiary-view-cwd-')),
    env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

describe('apiary view', { timeout: 60_000 }, () => {
  it('serves the run on loopback, prints the address, stops on Ctrl-C', async () => {
    const cli = startCli(['view', RUN, '--port', '0']);
    await expect.poll(() => cli.out(), { timeout: 30_000 }).toMatch(/press Ctrl-C to stop/);
    const [first, url] = cli.out().split('\n');
    expect(first).toBe(`viewing ${join(RUN, 'results.jsonl')} (2 records)`);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const run = (await (await fetch(`${url}api/run`)).json()) as {
      spec: { task: { name: string } };
      hasPass: boolean;
    };
    expect(run.spec.task.name).toBe('appbench');
    expect(run.hasPass).toBe(true);
    const tool = (await (await fetch(`${url}api/samples?error=tool`)).json()) as {
      items: Array<{ id: string }>;
    };
    expect(tool.items.map((e) => e.id)).toEqual(['mm-1']);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    expect(cli.err()).toBe('');
  });

  it('a folder without results is NOT_FOUND, without a stack', async () => {
    const cli = startCli(['view', join(RUN, 'nope'), '--port', '0']);
    expect(await cli.exited).toBe(2); // EXIT.input
    expect(cli.err()).toBe(`error [NOT_FOUND] no results file at ${join(RUN, 'nope', 'results.jsonl')}\n`);
  });
});
