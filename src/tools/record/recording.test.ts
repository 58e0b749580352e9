import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AppHandler, ContentPart } from '../../apps/index.js';
import { ApiaryError, sha256Hex } from '../../shared/index.js';
import { type ExecutableTool, toolHandler } from '../tool.js';
import { callKey } from './call-key.js';
import { recordedHandler } from './recorded-handler.js';
import { formatRecordingStats, RECORDING_INDEX, type RecordMode, ToolRecording } from './recording.js';

const dir = mkdtempSync(join(tmpdir(), 'apiary-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const input = join(dir, 'input.txt');
writeFileSync(input, 'abc');

/** A tool that counts its runs: `shout` writes the upper-cased input file to the output folder. */
function countingTool(): ExecutableTool & { runs: number } {
  const tool = {
    name: 'Shout',
    runs: 0,
    async run(args: Record<string, unknown>, ctx: { outputDir: string }): Promise<ContentPart[]> {
      tool.runs++;
      if (args.fail) throw new ApiaryError('TOOL_FAILED', `Shout: cannot shout ${String(args.fail)}`);
      const text = readFileSync(String(args.file), 'utf8').toUpperCase();
      mkdirSync(ctx.outputDir, { recursive: true });
      const out = join(ctx.outputDir, `shout-${text}.txt`);
      writeFileSync(out, text);
      return [
        { type: 'text', text: `${text}!` },
        { type: 'file', path: out, mediaType: 'text/plain' },
      ];
    },
  };
  return tool;
}

const ctx = { caller: 'tool:Shout' };

function handlerFor(tool: ExecutableTool, recording: ToolRecording, outputDir: string): AppHandler {
  return recordedHandler(toolHandler(tool, { outputDir, readable: [] }), recording, { outputDir });
}

function fresh(name: string, mode: RecordMode = 'record'): ToolRecording {
  return new ToolRecording(join(dir, name), mode);
}

describe('callKey', () => {
  it('keys a file argument by its content, not its path', () => {
    const copy = join(dir, 'copy.txt');
    writeFileSync(copy, 'abc');
    const a = callKey('Shout', 'Shout', { file: input, n: 1 });
    expect(a.inputs).toEqual({ file: sha256Hex('abc') });
    expect(callKey('Shout', 'Shout', { n: 1, file: copy }).key).toBe(a.key);
    expect(callKey('Shout', 'Shout', { file: input, n: 2 }).key).not.toBe(a.key);
    expect(callKey('Other', 'Other', { file: input, n: 1 }).key).not.toBe(a.key);
    // A relative path is text: its key does not depend on what the current folder holds.
    expect(callKey('Shout', 'Shout', { file: 'package.json' }).inputs).toEqual({});
  });
});

describe('record and replay', () => {
  it('records calls with their output files, then replays them without running the tool', async () => {
    const tool = countingTool();
    const out1 = join(dir, 'run1');
    const rec = fresh('rec1');
    const first = await handlerFor(tool, rec, out1).call('Shout', { file: input }, ctx);
    await expect(handlerFor(tool, rec, out1).call('Shout', { fail: 'x' }, ctx)).rejects.toThrow(
      'Shout: cannot shout x',
    );
    expect(tool.runs).toBe(2);
    expect(rec.stats).toEqual({ hits: 0, misses: 0, runs: 2, recorded: 2 });
    const stored = join(dir, 'rec1', 'files', `${sha256Hex('ABC')}.txt`);
    expect(readFileSync(stored, 'utf8')).toBe('ABC');
    expect(
      readFileSync(join(dir, 'rec1', RECORDING_INDEX), 'utf8')
        .trimEnd()
        .split('\n'),
    ).toHaveLength(2);

    // Replay in another run: same result, the file restored under its name, the error raised again.
    const replay = fresh('rec1', 'replay');
    expect(replay.size).toBe(2);
    const out2 = join(dir, 'run2');
    const again = await handlerFor(tool, replay, out2).call('Shout', { file: input }, ctx);
    expect(again).toEqual({
      content: [
        { type: 'text', text: 'ABC!' },
        { type: 'file', path: join(out2, 'shout-ABC.txt'), mediaType: 'text/plain' },
      ],
    });
    expect(first).toEqual({
      content: [
        { type: 'text', text: 'ABC!' },
        { type: 'file', path: join(out1, 'shout-ABC.txt'), mediaType: 'text/plain' },
      ],
    });
    expect(readFileSync(join(out2, 'shout-ABC.txt'), 'utf8')).toBe('ABC');
    await expect(handlerFor(tool, replay, out2).call('Shout', { fail: 'x' }, ctx)).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: 'Shout: cannot shout x',
    });
    expect(tool.runs).toBe(2);
    expect(replay.stats).toEqual({ hits: 2, misses: 0, runs: 0, recorded: 0 });
  });

  it('counts a miss: replay fails with "replay miss", record-missing runs and records it', async () => {
    const tool = countingTool();
    const rec = fresh('rec2');
    await handlerFor(tool, rec, join(dir, 'o')).call('Shout', { file: input }, ctx);
    const other = join(dir, 'other.txt');
    writeFileSync(other, 'xyz');

    const strict = fresh('rec2', 'replay');
    await expect(
      handlerFor(tool, strict, join(dir, 'o')).call('Shout', { file: other }, ctx),
    ).rejects.toThrow(/^replay miss: Shout \{"file":".*other\.txt"\} is not in the recording/);
    expect(strict.stats).toEqual({ hits: 0, misses: 1, runs: 0, recorded: 0 });
    expect(tool.runs).toBe(1);

    const filling = fresh('rec2', 'record-missing');
    const h = handlerFor(tool, filling, join(dir, 'o'));
    await h.call('Shout', { file: input }, ctx);
    await h.call('Shout', { file: other }, ctx);
    await h.call('Shout', { file: other }, ctx);
    expect(filling.stats).toEqual({ hits: 2, misses: 1, runs: 1, recorded: 1 });
    expect(formatRecordingStats(filling.stats)).toBe('2 hits, 1 miss, 1 run, 1 recorded');
    expect(formatRecordingStats(strict.stats)).toBe('0 hits, 1 miss, 0 runs, 0 recorded');
    expect(tool.runs).toBe(2);
    expect(fresh('rec2', 'replay').size).toBe(2);
  });

  it('replays a file only if its checksum matches', async () => {
    const tool = countingTool();
    const rec = fresh('rec3');
    await handlerFor(tool, rec, join(dir, 'o3')).call('Shout', { file: input }, ctx);
    const stored = join(dir, 'rec3', 'files', `${sha256Hex('ABC')}.txt`);
    writeFileSync(stored, 'ABD');
    const replay = fresh('rec3', 'replay');
    await expect(
      handlerFor(tool, replay, join(dir, 'o4')).call('Shout', { file: input }, ctx),
    ).rejects.toThrow(
      `recording ${join(dir, 'rec3')}: files/${basename(stored)} is corrupted (sha256 ${sha256Hex('ABD')}, recorded ${sha256Hex('ABC')})`,
    );
    expect(existsSync(join(dir, 'o4', 'shout-ABC.txt'))).toBe(false);
    rmSync(stored);
    await expect(
      handlerFor(tool, replay, join(dir, 'o4')).call('Shout', { file: input }, ctx),
    ).rejects.toThrow(`files/${basename(stored)} is missing (recorded as shout-ABC.txt)`);
    expect(tool.runs).toBe(1);
  });

  it('never records an unconfigured tool, so it runs once configured', async () => {
    let ready = false;
    const tool: ExecutableTool = {
      name: 'Later',
      unavailable: () => (ready ? undefined : 'set LATER_KEY'),
      run: async () => [{ type: 'text', text: 'done' }],
    };
    const rec = fresh('rec4', 'record-missing');
    const h = recordedHandler(toolHandler(tool, { outputDir: dir, readable: [] }), rec, { outputDir: dir });
    await expect(h.call('Later', {}, { caller: 'tool:Later' })).rejects.toThrow(
      'Later is not available: set LATER_KEY',
    );
    ready = true;
    expect(await h.call('Later', {}, { caller: 'tool:Later' })).toEqual({
      content: [{ type: 'text', text: 'done' }],
    });
    expect(rec.stats).toEqual({ hits: 0, misses: 2, runs: 2, recorded: 1 });
  });

  it('names the file and line of a malformed index, and a missing recording in replay mode', () => {
    const bad = join(dir, 'rec5');
    fresh('rec5');
    writeFileSync(
      join(bad, RECORDING_INDEX),
      '{"key":"k","tool":"T","api":"T","args":{},"inputs":{},"files":[]}\n',
    );
    expect(() => fresh('rec5', 'replay')).toThrow(`${join(bad, RECORDING_INDEX)}: record line 1`);
    expect(() => fresh('nothing-here', 'replay')).toThrow(
      `no recording at ${join(dir, 'nothing-here')} (index.jsonl is missing)`,
    );
  });
});
