import { describe, expect, it } from 'vitest';
import { parseAppBenchPredictions } from './score-predictions.js';

describe('parseAppBenchPredictions', () => {
  it('reads {id, reply, error?} lines and harness results lines', () => {
    const text = [
      JSON.stringify({ id: 'ss-0', reply: 'Weather: [t = getweather()]', model: 'm' }),
      '',
      JSON.stringify({ type: 'header', spec: {} }),
      JSON.stringify({ type: 'sample', id: 'sm-1', output: { reply: 'x' }, error: null }),
      JSON.stringify({ type: 'sample', id: 'sm-2', output: null, error: 'HTTP 500' }),
      '{"id": "ms-0", "rep',
    ].join('\n');
    expect(parseAppBenchPredictions(text, 'p.jsonl')).toEqual({
      lines: [
        { line: 1, prediction: { id: 'ss-0', reply: 'Weather: [t = getweather()]' } },
        { line: 4, prediction: { id: 'sm-1', reply: 'x' } },
        { line: 5, prediction: { id: 'sm-2', reply: null, error: 'HTTP 500' } },
      ],
      truncatedTail: true,
    });
  });

  it('names the file, line and field of a bad line', () => {
    expect(() => parseAppBenchPredictions('{"id": 3, "reply": "x"}\n', 'p.jsonl')).toThrow(
      /p\.jsonl: record line 1: field "id"/,
    );
    expect(() => parseAppBenchPredictions('{"id": "a"}\n', 'p.jsonl')).toThrow(
      /line 1: field "reply": needs "reply"/,
    );
    expect(() => parseAppBenchPredictions('nope\n{"id": "a", "reply": ""}\n', 'p.jsonl')).toThrow(
      /p\.jsonl: record line 1: not valid JSON/,
    );
  });
});
