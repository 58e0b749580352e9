import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, startCli } from '../__fixtures__/run-cli.js';

/* `apiary view`: the real CLI in a child process, on a real AppBench tool-loop run folder. */

const RUN = join(ROOT, 'src', 'viewer', '__fixtures__', 'appbench-tool-loop');
/** `apiary <args>` running on a clean machine, in a fresh temp folder. */
const startView = (args: string[]) =>
  startCli(args, { cwd: mkdtempSync(join(tmpdir(), 'apiary-view-cwd-')) });

describe('apiary view', { timeout: 60_000 }, () => {
  it('serves the run on loopback, prints the address, stops on Ctrl-C', async () => {
    const cli = startView(['view', RUN, '--port', '0']);
    await expect.poll(() => cli.out.stdout, { timeout: 30_000 }).toMatch(/press Ctrl-C to stop/);
    const [first, url] = cli.out.stdout.split('\n');
    expect(first).toBe(`viewing ${join(RUN, 'results.jsonl')} (2 records)`);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43}$/);
    const { origin, searchParams } = new URL(url!);
    const token = searchParams.get('token');
    expect((await fetch(`${origin}/api/run`)).status).toBe(403); // no token: nothing
    const run = (await (await fetch(`${origin}/api/run?token=${token}`)).json()) as {
      spec: { task: { name: string } };
      hasPass: boolean;
    };
    expect(run.spec.task.name).toBe('appbench');
    expect(run.hasPass).toBe(true);
    const tool = (await (await fetch(`${origin}/api/samples?error=tool&token=${token}`)).json()) as {
      items: Array<{ id: string }>;
    };
    expect(tool.items.map((e) => e.id)).toEqual(['mm-1']);
    cli.child.kill('SIGINT');
    expect((await cli.done).code).toBe(0);
    expect(cli.out.stderr).toBe('');
  });

  it('a folder without results is NOT_FOUND, without a stack', async () => {
    const cli = startView(['view', join(RUN, 'nope'), '--port', '0']);
    expect((await cli.done).code).toBe(2); // EXIT.input
    expect(cli.out.stderr).toBe(
      `error [NOT_FOUND] no results file at ${join(RUN, 'nope', 'results.jsonl')}\n`,
    );
  });
});
