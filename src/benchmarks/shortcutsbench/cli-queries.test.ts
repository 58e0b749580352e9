import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli/__fixtures__/run-cli-in-process.js';
import {
  type ScriptedChatRequest,
  type ScriptedOpenAiServer,
  startScriptedOpenAiServer,
} from '../../test/index.js';
import { FILTER_SYSTEM_PROMPT, QUERY_SYSTEM_PROMPT } from './query-prompts.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const FIXTURES = join(ROOT, 'src/benchmarks/shortcutsbench/__fixtures__');
const MINE = join(FIXTURES, 'my-shortcuts');
const APIS = join(FIXTURES, 'authored');
const apiary = (...args: string[]) => runCliInProcess(args);

/** A folder with the weather and battery shortcuts (no sidecars) and one ShortcutsBench JSON record. */
function shortcutFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-queries-'));
  copyFileSync(join(MINE, 'weather.shortcut'), join(dir, 'weather.shortcut'));
  copyFileSync(join(MINE, 'battery.plist'), join(dir, 'battery.plist'));
  const gold = JSON.parse(
    readFileSync(join(APIS, '1_final_detailed_records_filter_apis_leq_30.json'), 'utf8'),
  );
  writeFileSync(join(dir, 'record5.json'), JSON.stringify(gold[4]));
  return dir;
}

/** The `- action N (api), name: value` lines of a prompt section. */
function valueLines(text: string, heading: string): Array<{ pos: string; name: string; value: string }> {
  const section = text.split(`${heading}\n`)[1]?.split('\n\n')[0] ?? '';
  return [...section.matchAll(/^- action (\d+)(?: \([^)]*\))?, (\w+)(?::| =) (.*)$/gm)].map((m) => ({
    pos: m[1]!,
    name: m[2]!,
    value: m[3]!.replace(/^"(.*)"$/, '$1'),
  }));
}

/**
 * The scripted model: the writer states every value it is asked for except those `omit` names
 * (`<pos>:<name>`, on the first attempt only, or always); the filter judges by the words present.
 */
function scriptedQueries(omit: { first?: string[]; always?: string[] } = {}) {
  return (req: ScriptedChatRequest): string => {
    const system = req.messages[0]!.content;
    const user = req.messages.at(-1)!.content;
    if (system === QUERY_SYSTEM_PROMPT) {
      const retry = user.includes('Your previous request was:');
      const values = valueLines(user, 'Values the request must contain:').filter(
        (v) =>
          !(omit.always ?? []).includes(`${v.pos}:${v.name}`) &&
          (retry || !(omit.first ?? []).includes(`${v.pos}:${v.name}`)),
      );
      return `"Please run it${values.length ? ` with ${values.map((v) => v.value).join(' and ')}` : ''}."`;
    }
    if (system === FILTER_SYSTEM_PROMPT) {
      const query = /^User request: (.*)$/m.exec(user)![1]!;
      const verdicts: Record<string, Record<string, unknown>> = {};
      for (const v of valueLines(user, 'Values:')) {
        const stated = query.includes(v.value);
        verdicts[v.pos] = verdicts[v.pos] ?? {};
        verdicts[v.pos]![v.name] = {
          [v.name]: stated ? 'Essential parameter' : 'Not essential parameter',
          reason: stated ? 'stated' : 'absent',
        };
      }
      return `Here it is: ${JSON.stringify(verdicts)}`;
    }
    throw new Error(`unexpected prompt: ${system.slice(0, 60)}`);
  };
}

let server: ScriptedOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'queries.manifest.json'), 'utf8'));

describe('apiary shortcuts queries', { timeout: 60_000 }, () => {
  it('writes a query per shortcut that states every preset value; eval --shortcuts runs on the result', async () => {
    // weather's first query leaves out the speaking rate: the filter and the string check catch it
    server = await startScriptedOpenAiServer({ respond: scriptedQueries({ first: ['8:WFSpeakTextRate'] }) });
    const dir = shortcutFolder();
    const out = join(dir, 'out');
    const r = await apiary(
      'shortcuts',
      'queries',
      dir,
      '--data',
      APIS,
      '--out',
      out,
      '--base-url',
      server.url,
      '--model',
      'scripted',
      '--seed',
      '7',
    );
    expect(r.stderr).not.toContain('error [');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `3 shortcuts: 3 accepted, 0 rejected, 0 templated (no model), 0 kept (a query was there), 0 unreadable; queries in ${out}, manifest ${join(out, 'queries.manifest.json')}\n`,
    );
    expect(readFileSync(join(out, 'weather.query.txt'), 'utf8')).toBe(
      'Please run it with GET and false and 0.5.\n',
    );
    expect(readFileSync(join(out, 'battery.query.txt'), 'utf8')).toBe('Please run it.\n');
    const m = manifestOf(out);
    expect(m.counts).toEqual({ accepted: 3, rejected: 0, templated: 0, kept: 0, unreadable: 0, skipped: 0 });
    const weather = m.shortcuts.find((s: { file: string }) => s.file === 'weather.shortcut');
    expect(
      weather.outcome.values.map(
        (v: { pos: string; name: string; text: string }) => `${v.pos}:${v.name}=${v.text}`,
      ),
    ).toEqual(['3:WFHTTPMethod="GET"', '6:WFNotificationActionSound=false', '8:WFSpeakTextRate=0.5']);
    expect(weather.outcome.attempts.map((a: { missed: string[] }) => a.missed)).toEqual([
      ['8:WFSpeakTextRate'],
      [],
    ]);
    expect(weather.outcome.attempts[0].stringCheck).toEqual({
      '3:WFHTTPMethod': true,
      '6:WFNotificationActionSound': null,
      '8:WFSpeakTextRate': false,
    });
    // every value the filter found stated is in the query as written
    for (const s of m.shortcuts) {
      const last = s.outcome.attempts.at(-1);
      for (const v of s.outcome.values) {
        expect(last.filter[v.pos][v.name][v.name]).toBe('Essential parameter');
        expect(s.query).toContain(v.text.replace(/^"(.*)"$/, '$1'));
      }
    }
    // in place (no --out), a JSON source gets a plist beside it; a rerun reads that plist and skips the JSON
    await apiary('shortcuts', 'queries', dir, '--data', APIS);
    expect(existsSync(join(dir, 'record5.plist'))).toBe(true);
    const inPlace = await apiary('shortcuts', 'queries', dir, '--data', APIS);
    expect(inPlace.stdout).toContain(
      '3 kept (a query was there), 0 unreadable, 1 skipped (a file of the same name is read)',
    );
    expect(manifestOf(dir).shortcuts.find((s: { file: string }) => s.file === 'record5.json').reason).toBe(
      'record5.plist has the same name and is the one read',
    );
    // the JSON record is written as a plist beside its query; 2 calls per attempt with values, battery has none
    expect(existsSync(join(out, 'record5.plist'))).toBe(true);
    const record5 = m.shortcuts.find((s: { file: string }) => s.file === 'record5.json');
    expect([record5.shortcut, record5.outcome.values.length > 0]).toEqual(['record5.plist', true]);
    expect(server.requests.length).toBe(2 * 2 + 0 + 1 * 2 + 1);
    // the seed reaches the endpoint, one per call
    expect(new Set(server.requests.map((q) => q.body.seed)).size).toBe(server.requests.length);

    const e = await apiary(
      'eval',
      'shortcuts',
      '--data',
      APIS,
      '--shortcuts',
      out,
      '--solver',
      'baseline',
      '--out',
      join(dir, 'run'),
    );
    expect(e.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, 'run', 'summary.json'), 'utf8'));
    expect(summary.records).toBe(3);
  });

  it('records a shortcut as rejected after the retries; no query file is written for it', async () => {
    server = await startScriptedOpenAiServer({ respond: scriptedQueries({ always: ['3:WFHTTPMethod'] }) });
    const dir = mkdtempSync(join(tmpdir(), 'apiary-queries-'));
    copyFileSync(join(MINE, 'weather.shortcut'), join(dir, 'weather.shortcut'));
    const r = await apiary(
      'shortcuts',
      'queries',
      dir,
      '--data',
      APIS,
      '--base-url',
      server.url,
      '--model',
      'm',
      '--retries',
      '1',
    );
    expect(r.code).toBe(0);
    const m = manifestOf(dir);
    expect(m.counts.rejected).toBe(1);
    expect(m.shortcuts[0].reason).toBe('every attempt (2) left out a value: 3:WFHTTPMethod');
    expect(existsSync(join(dir, 'weather.query.txt'))).toBe(false);
    // --accept string skips the model check: one call per attempt
    server.requests.length = 0;
    await apiary(
      'shortcuts',
      'queries',
      dir,
      '--data',
      APIS,
      '--base-url',
      server.url,
      '--model',
      'm',
      '--retries',
      '0',
      '--accept',
      'string',
    );
    expect(server.requests.length).toBe(1);
  });

  it('without a model writes a templated query stating each value, labelled; an existing query is kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-queries-'));
    copyFileSync(join(MINE, 'weather.shortcut'), join(dir, 'weather.shortcut'));
    copyFileSync(join(MINE, 'battery.plist'), join(dir, 'battery.plist'));
    writeFileSync(join(dir, 'battery.query.txt'), 'How much battery is left?\n');
    writeFileSync(join(dir, 'signed.shortcut'), Buffer.from('AEA1 not readable'));
    const r = await apiary('shortcuts', 'queries', dir, '--data', APIS);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'weather.query.txt'), 'utf8')).toBe(
      'Run my "weather" shortcut with Method GET, Play Sound off, Rate 0.5.\n',
    );
    expect(readFileSync(join(dir, 'battery.query.txt'), 'utf8')).toBe('How much battery is left?\n');
    const m = manifestOf(dir);
    expect([m.queries, m.counts]).toEqual([
      'templated (no model: every value stated literally)',
      { accepted: 0, rejected: 0, templated: 1, kept: 1, unreadable: 1, skipped: 0 },
    ]);
    expect(m.shortcuts.find((s: { file: string }) => s.file === 'signed.shortcut').reason).toContain(
      'cannot import: it is a signed shortcut',
    );
  });

  it('a model error stops the run naming the file; what was written stays and a rerun keeps it', async () => {
    server = await startScriptedOpenAiServer({
      respond: (req) =>
        req.messages.at(-1)!.content.includes('Shortcut name: weather')
          ? { fault: 'empty-choices' }
          : 'Check it.',
    });
    const dir = mkdtempSync(join(tmpdir(), 'apiary-queries-'));
    copyFileSync(join(MINE, 'weather.shortcut'), join(dir, 'weather.shortcut'));
    copyFileSync(join(MINE, 'battery.plist'), join(dir, 'battery.plist'));
    const args = ['shortcuts', 'queries', dir, '--data', APIS, '--base-url', server.url, '--model', 'm'];
    const r = await apiary(...args);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`error [MODEL_CALL_FAILED] ${join(dir, 'weather.shortcut')}: `);
    expect(readFileSync(join(dir, 'battery.query.txt'), 'utf8')).toBe('Check it.\n');
    expect(manifestOf(dir).counts).toEqual({
      accepted: 1,
      rejected: 0,
      templated: 0,
      kept: 0,
      unreadable: 0,
      skipped: 0,
    });
    const again = await apiary(...args);
    expect(again.code).toBe(3);
    expect(manifestOf(dir).counts.kept).toBe(1);
  });

  it('names a missing folder and a bad flag', async () => {
    const r = await apiary('shortcuts', 'queries', '/nonexistent/x');
    expect([r.code, r.stderr]).toEqual([
      2,
      'error [NOT_FOUND] shortcut folder /nonexistent/x does not exist or is not a folder\n',
    ]);
    const b = await apiary('shortcuts', 'queries', MINE, '--accept', 'maybe');
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--accept');
  });
});
