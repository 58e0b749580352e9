import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { minimalRunSpec } from './__fixtures__/run-spec.js';
import {
  BLOB_MIN_CHARS,
  externalize,
  ResultsWriter,
  readResultsFile,
  type SampleLine,
  type SerializedSampleLine,
  sampleLineText,
} from './results-file.js';

const line = (id: string, output: unknown): SampleLine => ({
  type: 'sample',
  id,
  epoch: 1,
  category: null,
  output,
  error: null,
  usage: null,
  modelCalls: 1,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1,
  score: null,
});

describe('results file blobs', () => {
  const prompt = `You plan calls. ${'x'.repeat(BLOB_MIN_CHARS)}`;
  const header = JSON.stringify({ type: 'header', spec: { version: 99 } });

  it('stores a long shared text once and gives it back in place when read', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'apiary-blobs-')), 'results.jsonl');
    const w = ResultsWriter.open(file, 0);
    w.appendRaw(`${header}\n`);
    w.append(line('a', { reply: 'A', trace: [{ sent: { system: prompt } }] }));
    w.append(line('b', { reply: 'B', trace: [{ sent: { system: prompt } }], short: 'kept inline' }));
    w.close();
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['header', 'blob', 'sample', 'sample']);
    expect(lines[1].text).toBe(prompt);
    expect(lines[3].output).toEqual({
      reply: 'B',
      trace: [{ sent: { system: { $blob: lines[1].sha256 } } }],
      short: 'kept inline',
    });
    expect(readFileSync(file, 'utf8').length).toBeLessThan(2 * prompt.length);
  });

  it('lines serialised in a worker (sampleLineText) make the very bytes the writer makes', () => {
    const other = `Another catalog. ${'y'.repeat(BLOB_MIN_CHARS)}`;
    const records = [
      line('a', { reply: 'A', trace: [{ sent: { system: prompt } }] }),
      line('b', { reply: 'B', system: prompt, also: other }),
      line('c', { reply: 'C' }),
    ];
    const dir = mkdtempSync(join(tmpdir(), 'apiary-blobs-'));
    const direct = ResultsWriter.open(join(dir, 'direct.jsonl'), 0);
    for (const r of records) direct.append(r);
    direct.close();
    // as a worker does: every blob a line refers to is named (here `prompt` twice), its text sent once
    const sentTexts = new Map<string, string>();
    const serialized: SerializedSampleLine[] = records.map((r) => {
      const blobRefs: string[] = [];
      const text = sampleLineText(r, new Set(), (b) => {
        blobRefs.push(b.sha256);
        sentTexts.set(b.sha256, b.text);
      });
      return { text, blobRefs };
    });
    expect(serialized.map((l) => l.blobRefs.length)).toEqual([1, 2, 0]);
    const streamed = ResultsWriter.open(join(dir, 'streamed.jsonl'), 0);
    streamed.appendSerialized(serialized.slice(0, 1), (h) => sentTexts.get(h)!);
    streamed.appendSerialized(serialized.slice(1), (h) => sentTexts.get(h)!);
    streamed.close();
    const bytes = readFileSync(join(dir, 'streamed.jsonl'), 'utf8');
    expect(bytes).toBe(readFileSync(join(dir, 'direct.jsonl'), 'utf8'));
    expect(bytes.split('\n').map((l) => (l ? JSON.parse(l).type : ''))).toEqual([
      'blob',
      'sample',
      'blob',
      'sample',
      'sample',
      '',
    ]);
  });

  it('a resumed writer knows the blobs already in the file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'apiary-blobs-')), 'results.jsonl');
    const w = ResultsWriter.open(file, 0);
    w.appendRaw(`${JSON.stringify({ type: 'header', spec: HEADER_SPEC })}\n`);
    w.append(line('a', { system: prompt }));
    w.close();
    const before = readResultsFile(file);
    expect(before.samples[0]!.output).toEqual({ system: prompt });
    const again = ResultsWriter.open(file, before.validBytes, before.blobs);
    again.append(line('b', { system: prompt }));
    again.close();
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n').filter((l) => l.includes('"type":"blob"'))).toHaveLength(1);
    expect(readResultsFile(file).samples.map((s) => s.output)).toEqual([
      { system: prompt },
      { system: prompt },
    ]);
  });
});

const HEADER_SPEC = minimalRunSpec({
  task: { name: 't', version: '1', options: {} },
  solver: { name: 's', options: {} },
  data: { path: 'p', sha256: 'h' },
  size: 2,
});

describe('externalize', () => {
  const long = 'p'.repeat(BLOB_MIN_CHARS);
  it('returns plain data without long strings as it is, and copies only the path to a long one', () => {
    const known = new Set<string>();
    const blobs: string[] = [];
    const short = { reply: 'a', trace: [{ sent: { messages: [{ role: 'user', content: 'hi' }] } }] };
    expect(externalize(short, known, (b) => blobs.push(b.sha256))).toBe(short);
    const input = { reply: 'a', trace: [{ step: 1 }, { sent: { system: long, n: 2 } }] };
    const out = externalize(input, known, (b) => blobs.push(b.sha256)) as typeof input;
    expect(blobs).toHaveLength(1);
    expect(out).toEqual({
      reply: 'a',
      trace: [{ step: 1 }, { sent: { system: { $blob: blobs[0] }, n: 2 } }],
    });
    expect(out.trace[0]).toBe(input.trace[0]); // untouched branch shared
    expect((input.trace[1] as { sent: { system: string } }).sent.system).toBe(long); // input not mutated
  });
  it('copies objects that are not plain data by their own keys, as before (a Date has none)', () => {
    expect(externalize({ at: new Date(0) }, new Set(), () => {})).toEqual({ at: {} });
  });
});
