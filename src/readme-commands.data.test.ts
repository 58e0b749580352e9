import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeToolBenchFixtures } from './benchmarks/toolbench/__fixtures__/data-root.js';
import { ROOT, runCli } from './cli/__fixtures__/run-cli.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from './test/index.js';

/*
 * Issue 13 item 7: every `apiary` command in README.md's shell blocks runs, exit 0, as on a fresh
 * clone: no user cache or built database (HOME and XDG folders are empty temp folders), `../shared/data`
 * is a folder of the bundled fixtures, and the model endpoint is the scripted server. The README is
 * read when the test runs, so lines added later are covered. A command that cannot run here is
 * skipped only when the README says so with a hidden marker, one per line, anywhere in the file:
 *
 *   <!-- readme-test: skip "<first words of the command, unquoted>" because <reason> -->
 *
 * Network-free; in the data suite because its ~25 CLI starts take about a minute (too slow for unit).
 */

/** The shell commands of README.md's ```bash blocks: continuation lines joined, comments removed. */
function readmeCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/^```(?:bash|sh|shell)\n([\s\S]*?)^```/gm)) {
    let pending = '';
    for (const raw of block[1]!.split('\n')) {
      const line = stripComment(raw).trim();
      if (line.endsWith('\\')) {
        pending += `${line.slice(0, -1).trim()} `;
        continue;
      }
      const command = (pending + line).trim();
      pending = '';
      if (command) commands.push(command);
    }
  }
  return commands;
}

/** Drops a `# comment` that starts outside quotes. */
function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** Shell words of a simple command: whitespace-separated, single and double quotes removed. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const m of command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}

/** A command as its words joined by one space (what a marker's prefix is compared with). */
function unquoted(command: string): string {
  return shellWords(command).join(' ');
}

/** The README's skip markers: the first words of a command (unquoted) → reason. */
function skipMarkers(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of markdown.matchAll(/<!--\s*readme-test:\s*skip\s+"([^"]+)"\s+because\s+([\s\S]*?)\s*-->/g))
    out.set(m[1]!, m[2]!);
  return out;
}

describe('readmeCommands / shellWords / skipMarkers', () => {
  const md = [
    '```bash',
    'apiary a --x "two words"   # comment with "quotes"',
    'apiary b "…" \\',
    "  --c 'q # not a comment'",
    '```',
    '<!-- readme-test: skip "apiary b" because it needs a server -->',
    '```ts',
    'apiary not-shell',
    '```',
  ].join('\n');
  it('joins continuations, drops comments outside quotes, reads markers', () => {
    expect(readmeCommands(md)).toEqual([
      'apiary a --x "two words"',
      'apiary b "…" --c \'q # not a comment\'',
    ]);
    expect(shellWords('apiary b "…" --c \'q # x\'')).toEqual(['apiary', 'b', '…', '--c', 'q # x']);
    expect([...skipMarkers(md)]).toEqual([['apiary b', 'it needs a server']]);
  });
});

describe('every command of README.md', { timeout: 600_000 }, () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const markers = skipMarkers(readme);
  const commands = readmeCommands(readme);
  let server: ScriptedOpenAiServer;
  let clone: string;
  let home: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    // Any model reply is this plan line: it names an app (hierarchical selection), parses as a
    // plan (flat), and is a final answer for the tool-calling loops.
    server = await startScriptedOpenAiServer({
      respond: () => "Weather: [temperature = getweather(#city='Novato', #date='2019-03-12')]",
      modelIds: null,
    });
    const top = mkdtempSync(join(tmpdir(), 'apiary-readme-'));
    clone = join(top, 'clone');
    mkdirSync(clone);
    symlinkSync(join(ROOT, 'examples'), join(clone, 'examples'));
    const data = join(top, 'shared', 'data');
    writeToolBenchFixtures(data);
    cpSync(join(ROOT, 'examples/appbench-mini'), join(data, 'appbench'), { recursive: true });
    mkdirSync(join(data, 'sgd', 'train'), { recursive: true });
    copyFileSync(join(ROOT, 'data/sgd-db/sgd-subset.json'), join(data, 'sgd', 'train', 'dialogues_001.json'));
    home = join(top, 'home');
    // commands that name a model without an endpoint, or no model at all, get the scripted one
    env = { APIARY_BASE_URL: `${server.url}`, APIARY_MODEL: 'scripted' };
  });
  afterAll(() => server?.close());

  it('the README has commands, and every skip marker matches one (no stale markers)', () => {
    expect(commands.filter((c) => c.startsWith('apiary ')).length).toBeGreaterThan(20);
    const stale = [...markers.keys()].filter((p) => !commands.some((c) => unquoted(c).startsWith(p)));
    expect(stale).toEqual([]);
  });

  it('runs each command in README order with exit 0 (or skips it by its marker)', async () => {
    const failures: string[] = [];
    const ran: string[] = [];
    for (const command of commands) {
      const skip = [...markers.keys()].find((p) => unquoted(command).startsWith(p));
      if (skip) continue;
      if (!command.startsWith('apiary ')) {
        failures.push(`${command}: not an apiary command; add a readme-test skip marker with the reason`);
        continue;
      }
      const words = shellWords(command.replaceAll('http://localhost:8000/v1', server.url)).slice(1);
      const r = await runCli(words, { cwd: clone, home, env });
      if (r.code === 0) ran.push(command);
      else failures.push(`${command}: exit ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    }
    expect(failures).toEqual([]);
    expect(ran.length).toBeGreaterThan(15);
  });
});
