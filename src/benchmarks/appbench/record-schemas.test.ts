import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResultsFile } from '../../harness/index.js';
import { appBenchDefinition } from './register.js';

/** AppBench baseline records on two mini samples, written before sample events existed. */
const PRE_EVENTS = resolve(import.meta.dirname, '../../harness/__fixtures__/pre-events-results.jsonl');
const forAppBench = (name: string) => (name === 'appbench' ? appBenchDefinition : undefined);

describe('AppBench record schemas', () => {
  it('records written before events fit the output and score schemas', () => {
    const contents = readResultsFile(PRE_EVENTS, forAppBench);
    expect(contents.samples.map((s) => (s.output as { reply: string }).reply.split(':')[0])).toEqual([
      'Weather',
      'Restaurants',
    ]);
  });

  it('a record whose reply is not text, or whose score lacks the corrected counts, is refused by name', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'apiary-appbench-schema-')), 'results.jsonl');
    const text = readFileSync(PRE_EVENTS, 'utf8');
    writeFileSync(
      file,
      text.replace('"output":{"reply":"Restaurants', '"output":{"reply":7,"x":"Restaurants'),
    );
    expect(() => readResultsFile(file, forAppBench)).toThrow(
      expect.objectContaining({ code: 'INPUT_INVALID', file, record: 'line 3', field: 'output.reply' }),
    );
    writeFileSync(file, text.replace('"corrected":', '"uncorrected":'));
    expect(() => readResultsFile(file, forAppBench)).toThrow(
      expect.objectContaining({ code: 'INPUT_INVALID', record: 'line 2', field: 'score.corrected' }),
    );
  });
});
