import { describe, expect, it } from 'vitest';
import { runCli } from './__fixtures__/run-cli.js';

/** The CLI with its stdout read end closed at once, as `apiary ... | head -0` does. */
const runWithClosedStdout = (args: string[]) => runCli(args, { closedStdout: true });

describe('apiary piped into a reader that closes early (EPIPE)', () => {
  it('catalog export exits 0 without a stack trace', async () => {
    const r = await runWithClosedStdout(['catalog', 'export', '--catalog', 'appbench', '--format', 'openai']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('catalog list exits 0 without a stack trace', async () => {
    const r = await runWithClosedStdout(['catalog', 'list', '--catalog', 'appbench']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
