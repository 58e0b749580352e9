import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isJsonObject, type Json, parseJson } from './json-value.js';
import { shortcutLength } from './length.js';
import { normaliseAction, returnValueNames } from './normalise.js';
import { parseResultRecords } from './result-records.js';
import { scoreResultRecord } from './score-record.js';
import { summarizeShortcuts } from './summary.js';

const dir = join(import.meta.dirname, '__fixtures__');
const file = join(dir, 'worked-example.results.jsonl');
const [record] = parseResultRecords(readFileSync(file, 'utf8'), file);
const check = parseJson(readFileSync(join(dir, 'worked-example.check.json'), 'utf8'));
const significant = new Map<string, Json>(
  Object.entries(check as Record<string, Json>).map(([url, v]) => [
    url,
    isJsonObject(v) ? v.significant_paras! : null,
  ]),
);

describe('docs/shortcutsbench.md §10 worked example', () => {
  it('has LEN 5 (level 2) and the spec positions', () => {
    const { length, positions } = shortcutLength(record!.aseqs);
    expect(length).toBe(5);
    // ask 1, url 2, downloadurl 3, conditional start 4, setclipboard 5
    expect([...positions]).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
      [9, 5],
    ]);
  });

  it('gives the spec numbers in official mode: API 4/5, primitive 2/2, previous output 1/2, system input 0/1', () => {
    const score = scoreResultRecord(record!, significant, () => 'Productivity & Utilities');
    expect(score.level).toBe(2);
    const r = summarizeShortcuts([score], 'official');
    expect(r.api.overall).toEqual({ num: 4, den: 5, accuracy: 80 });
    expect(r.api.byLevel.L2).toEqual({ num: 4, den: 5, accuracy: 80 });
    expect(r.api.byLevel.L1).toEqual({ num: 0, den: 0, accuracy: 'inf' });
    expect(r.primitive.overall).toEqual({ num: 2, den: 2, accuracy: 100 });
    expect(r.previousOutput.overall).toEqual({ num: 1, den: 2, accuracy: 50 });
    expect(Object.keys(r.previousOutput.byLevel)).toEqual(['L2', 'L3', 'L4']);
    expect(r.previousOutput.errors).toEqual({ noPrediction: 0, formatError: 1, valueError: 0 });
    expect(r.systemInput.overall).toEqual({ num: 0, den: 1, accuracy: 0 });
    expect(r.systemInput.byType).toEqual({ CurrentDate: { num: 0, den: 1, accuracy: 0 } });
    // 20 candidates: bucket 16-20; the one wrong answer (showresult) is not listed → hallucination
    expect(r.byApiListSize[3]).toEqual({
      bucket: '16-20',
      api: { num: 4, den: 5, accuracy: 80 },
      wrong: 1,
      hallucinations: 1,
      positionRatio: 'inf',
    });
  });

  it('shows the url action in the history with the Value1 placeholder, OutputName and no serialization keys', () => {
    const types = new Set(['is.workflow.actions.ask', 'is.workflow.actions.url']);
    const defaults = new Map([
      ['is.workflow.actions.ask', 'Provided Input'],
      ['is.workflow.actions.url', 'URL'],
    ]);
    const names = returnValueNames(record!.aseqs, types, defaults);
    const before = JSON.stringify(record!.aseqs);
    expect(normaliseAction(record!.aseqs[2]!, names)).toEqual({
      WFWorkflowActionIdentifier: 'is.workflow.actions.url',
      WFWorkflowActionParameters: {
        UUID: 'B2B2B2B2-0000-0000-0000-000000000002',
        WFURLActionURL: {
          Value: {
            string: `https://wttr.in/${'$'}{Value1}?format=3`,
            attachmentsByRange: {
              Value1: {
                OutputUUID: 'A1A1A1A1-0000-0000-0000-000000000001',
                Type: 'ActionOutput',
                OutputName: 'Provided Input',
              },
            },
          },
        },
        OutputName: 'URL',
      },
    });
    expect(normaliseAction(record!.aseqs[1]!, names).WFWorkflowActionParameters).toMatchObject({
      OutputName: 'Provided Input',
    });
    expect(JSON.stringify(record!.aseqs)).toBe(before);
  });
});
