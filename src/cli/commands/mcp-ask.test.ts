import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ScriptedReply, startScriptedOpenAiServer } from '../../test/index.js';
import { ROOT } from '../__fixtures__/run-cli.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

const misbehaving = join(ROOT, 'src/mcp/__fixtures__/misbehaving-server.mjs');
const dir = mkdtempSync(join(tmpdir(), 'apiary-mcp-ask-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('apiary ask --servers', () => {
  it('--connect-timeout-ms bounds the wait for a server that never answers', async () => {
    const config = join(dir, 'mute.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { mute: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } },
      }),
    );
    const t0 = Date.now();
    const { code, stderr } = await runCliInProcess(
      [
        'ask',
        'anything',
        '--servers',
        config,
        '--connect-timeout-ms',
        '300',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--model',
        'none',
        // the model endpoint is dead too: skip its check so the servers' connect timeout is what is tested
        '--no-endpoint-check',
      ],
      { home: dir },
    );
    expect(code).not.toBe(0);
    expect(stderr).toMatch(
      /warning: MCP server "mute" not imported: MCP server "mute" \(.*\) could not be reached: MCP error -32001: Request timed out/,
    );
    expect(stderr).toContain(`no MCP server of ${config} could be imported`);
    // while it waits, stderr says which server is starting and for how long at most
    expect(stderr.split('\n')[0]).toBe(
      `starting MCP server "mute" (${process.execPath} -e setInterval(() => {}, 1000); up to 0.3 s)…`,
    );
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('retrieves imported MCP tools and calls them through dispatchCall (approvals apply)', async () => {
    const config = join(dir, 'servers.json');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { odd: { command: process.execPath, args: [misbehaving] } } }),
    );
    let turn = 0;
    const model = await startScriptedOpenAiServer({
      respond: (): ScriptedReply => {
        const t = turn++;
        if (t === 0) return { toolCalls: [{ id: 'c1', name: 'odd_echo', arguments: { text: 'hello' } }] };
        if (t === 1)
          return { toolCalls: [{ id: 'c2', name: 'odd_write_note', arguments: { note: 'hello' } }] };
        return 'Echoed; the note was not written.';
      },
    });
    try {
      const { code, stdout } = await runCliInProcess(
        [
          'ask',
          'echo hello and write it down as a note',
          '--servers',
          config,
          '--base-url',
          model.url,
          '--model',
          'scripted',
          '--approve',
          'deny',
          '--json',
        ],
        { home: dir },
      );
      expect(code).toBe(3); // a refused transactional call: PERMISSION_DENIED, exit 3, as in `run`
      const out = JSON.parse(stdout);
      expect(out.answer).toBe('Echoed; the note was not written.');
      expect(out.retrieved).toContain('odd.echo');
      expect(out.calls).toEqual([
        {
          step: 1,
          app: 'odd',
          api: 'echo',
          args: { text: 'hello' },
          ok: true,
          result: { content: [{ type: 'text', text: 'hello' }] },
        },
        {
          step: 2,
          app: 'odd',
          api: 'write_note',
          args: { note: 'hello' },
          ok: false,
          error: {
            // the code `run` reports for a refused transactional call (docs/errors.md)
            code: 'PERMISSION_DENIED',
            message:
              'transactional call odd.write_note not approved: transactional calls are denied for this run',
          },
        },
      ]);
    } finally {
      await model.close();
    }
  });
});
