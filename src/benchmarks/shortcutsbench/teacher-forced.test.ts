import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryAgentTrace, type TurnTaker } from '../../agents/index.js';
import { loadShortcutsApis } from './api-files.js';
import { loadCategories, loadGoldShortcuts, loadQueries, loadSignificantParams } from './data-files.js';
import { dumpsPythonJson, type Json, type JsonObject } from './json-value.js';
import { pyListRepr } from './prompts.js';
import { parseShortcutsReply } from './reply.js';
import { parseResultRecords } from './result-records.js';
import { scoreResultRecord } from './score-record.js';
import {
  isContextOrSafetyError,
  modelStepper,
  type ShortcutStep,
  type StepReply,
  solveShortcut,
} from './teacher-forced.js';

const dir = join(import.meta.dirname, '__fixtures__/authored');
const apis = loadShortcutsApis(dir);
const gold = loadGoldShortcuts(dir);
const queries = loadQueries(dir);
const URL6 = 'https://www.icloud.com/shortcuts/f1c0ffee000000000000000000000006';
const actionsOf = (url: string) => (gold.get(url)!.shortcut as JsonObject).WFWorkflowActions as Json[];
const shortcut6 = { url: URL6, query: queries.get(URL6)!, actions: actionsOf(URL6) };
const usage = { inputTokens: 100, outputTokens: 7 };

function scripted(replies: StepReply[]) {
  const steps: ShortcutStep[] = [];
  return {
    steps,
    stepper: async (s: ShortcutStep) => {
      steps.push(s);
      return replies[steps.length - 1]!;
    },
  };
}

const URLENCODE_REPLY =
  'Sure. {"Thought": "encode", "WFWorkflowActionIdentifier": "is.workflow.actions.urlencode", "WFWorkflowActionParameters": {"WFEncodeMode": "Encode", "WFInput": {"Value": {"VariableName": "word", "Type": "Variable"}}, "Rate": 1.0}} done';

describe('teacher-forced solver (docs/shortcutsbench.md §8.1, §8.2)', () => {
  it('sends the exact user prompt of docs/shortcutsbench.md §8.2 for the third action of shortcut 6 (gold history: ask, setvariable)', async () => {
    const s = scripted([
      { text: URLENCODE_REPLY, usage },
      { text: 'not json', usage },
      { text: '```json\n{"WFWorkflowActionIdentifier": "is.workflow.actions.openurl"}\n```', usage },
    ]);
    await solveShortcut(shortcut6, apis, 0, s.stepper);
    expect(s.steps.map((x) => x.position)).toEqual([2, 3, 4]);
    expect(s.steps[0]!.user).toBe(
      '\nThe user query is: Ask me for a word and search DuckDuckGo for it.\n\nThe history actions and observations are as follows:\n[\n  {\n    "WFWorkflowActionIdentifier": "is.workflow.actions.ask",\n    "WFWorkflowActionParameters": {\n      "WFAskActionPrompt": "Which word?",\n      "WFInputType": "Text",\n      "UUID": "00000000-0000-4000-8000-000000000601",\n      "OutputName": "Provided Input"\n    }\n  },\n  {\n    "WFWorkflowActionIdentifier": "is.workflow.actions.setvariable",\n    "WFWorkflowActionParameters": {\n      "WFVariableName": "word",\n      "WFInput": {\n        "Value": {\n          "OutputUUID": "00000000-0000-4000-8000-000000000601",\n          "Type": "ActionOutput",\n          "OutputName": "Provided Input"\n        }\n      }\n    }\n  }\n]\n\nContinue from this history with the next action. Output only the JSON format described above, without a code fence. Output only one action at a time. Output only one action at a time. Output only one action at a time.',
    );
    // the history always gets the GOLD urlencode, never the prediction
    expect(s.steps[1]!.history.map((h) => h.WFWorkflowActionIdentifier)).toEqual([
      'is.workflow.actions.ask',
      'is.workflow.actions.setvariable',
      'is.workflow.actions.urlencode',
    ]);
    expect(dumpsPythonJson(s.steps[1]!.history[2]!)).toBe(
      '{"WFWorkflowActionIdentifier": "is.workflow.actions.urlencode", "WFWorkflowActionParameters": {"WFInput": {"Value": {"Type": "Variable", "VariableName": "word"}}, "WFEncodeMode": "Encode", "UUID": "00000000-0000-4000-8000-000000000602", "OutputName": "URL Encoded Text"}}',
    );
  });

  it('lists the candidates as "<k>. <id>. <description>" with the sorted ids as a Python list', async () => {
    const s = scripted([
      { text: '{}', usage },
      { text: '{}', usage },
      { text: '{}', usage },
    ]);
    await solveShortcut(shortcut6, apis, 0, s.stepper);
    const { system, candidates } = s.steps[0]!;
    expect(candidates.apiNames).toEqual([
      'is.workflow.actions.urlencode',
      'is.workflow.actions.url',
      'is.workflow.actions.openurl',
      'is.workflow.actions.adjustdate',
      'is.workflow.actions.appendvariable',
      'is.workflow.actions.choosefromlist',
      'is.workflow.actions.setvolume',
      'is.workflow.actions.repeat.each',
      'is.workflow.actions.openapp',
      'is.workflow.actions.dictionary',
      'is.workflow.actions.addnewevent',
      'is.workflow.actions.format.date',
      'is.workflow.actions.downloadurl',
      'is.workflow.actions.comment',
      'is.workflow.actions.setbrightness',
    ]);
    expect(system).toContain(
      `"WFWorkflowActionIdentifier": the API to call; it must be one of ${pyListRepr(candidates.promptOrder)}.`,
    );
    expect(pyListRepr(['is.workflow.actions.a', "it's"])).toBe(`['is.workflow.actions.a', "it's"]`);
    expect(system).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the description's literal slot
      '\n14. is.workflow.actions.url. is.workflow.actions.url(WFURLActionURL: String) -> URL: NSURL(Object)\nParameters:\n    WFURLActionURL:  URL. apple.com.\nReturn Value:\n    URL: \nDescription:\n    URL: Passes the specified URL to the next action.\nParameterSummary: ${WFURLActionURL}\n\n15. is.workflow.actions.urlencode. ',
    );
  });

  it('writes the official result record (docs/shortcutsbench.md §8.1) that the scorer reads', async () => {
    const s = scripted([
      { text: URLENCODE_REPLY, usage },
      { text: 'not json', usage },
      { text: '```json\n{"WFWorkflowActionIdentifier": "is.workflow.actions.openurl"}\n```', usage },
    ]);
    const run = await solveShortcut(shortcut6, apis, 0, s.stepper);
    expect(run.modelCalls).toBe(3);
    expect(run.usage).toEqual({ inputTokens: 300, outputTokens: 21 });
    expect(run.endedEarly).toBeNull();
    const [record] = parseResultRecords(run.resultLine, 'run');
    expect(Object.keys(record!.raw)).toEqual([
      'URL',
      'query',
      'api_names',
      'api_descs',
      'aseqs',
      'bseqs',
      'seed',
      'input_tokens',
      'output_tokens',
    ]);
    expect(dumpsPythonJson(record!.aseqs)).toBe(dumpsPythonJson(shortcut6.actions as Json[]));
    expect(dumpsPythonJson(record!.raw.bseqs!)).toBe(
      '[{"state": "copy_from_true", "aseq": {"WFWorkflowActionIdentifier": "is.workflow.actions.ask", "WFWorkflowActionParameters": {"WFAskActionPrompt": "Which word?", "WFInputType": "Text", "UUID": "00000000-0000-4000-8000-000000000601"}}}, {"state": "copy_from_true", "aseq": {"WFWorkflowActionIdentifier": "is.workflow.actions.setvariable", "WFWorkflowActionParameters": {"WFVariableName": "word", "WFInput": {"Value": {"OutputUUID": "00000000-0000-4000-8000-000000000601", "Type": "ActionOutput", "OutputName": "Provided Input"}, "WFSerializationType": "WFTextTokenAttachment"}}}}, {"state": "generated_by_agent", "aseq": {"Thought": "encode", "WFWorkflowActionIdentifier": "is.workflow.actions.urlencode", "WFWorkflowActionParameters": {"WFEncodeMode": "Encode", "WFInput": {"Value": {"VariableName": "word", "Type": "Variable"}}, "Rate": 1.0}}}, {"state": "json_error", "aseq": "not json"}, {"state": "generated_by_agent", "aseq": {"WFWorkflowActionIdentifier": "is.workflow.actions.openurl"}}]',
    );
    const score = scoreResultRecord(record!, loadSignificantParams(dir), (u) => loadCategories(dir).get(u));
    // LEN 5 (ask, setvariable, urlencode, url, openurl) → L2; url unparsed; openurl without parameters
    expect(score.level).toBe(2);
    expect(score.official.api).toEqual({ num: 2, den: 3 });
    expect(score.official.primitive).toEqual({ num: 1, den: 1 }); // WFEncodeMode "Encode"
    expect(score.official.previousOutput).toEqual({
      num: 0,
      den: 1,
      noPrediction: 1,
      formatError: 0,
      valueError: 0,
    });
  });

  it('ends the shortcut on a context-length error, keeping aseqs cut to bseqs', async () => {
    const s = scripted([
      { text: URLENCODE_REPLY, usage },
      { endShortcut: 'context_length_exceeded', usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
    const run = await solveShortcut(shortcut6, apis, 0, s.stepper);
    const [record] = parseResultRecords(run.resultLine, 'run');
    expect(run.endedEarly).toBe('context_length_exceeded');
    expect(record!.aseqs.length).toBe(3);
    expect(record!.bseqs.map((b) => b.state)).toEqual([
      'copy_from_true',
      'copy_from_true',
      'generated_by_agent',
    ]);
  });
});

describe('modelStepper (one runAgent turn per action)', () => {
  const step = {
    position: 0,
    query: 'q',
    system: 'SYS',
    user: 'USER',
    history: [],
  } as unknown as ShortcutStep;
  it('passes the system and user prompt and returns the raw reply text', async () => {
    const seen: unknown[] = [];
    const turn: TurnTaker = async (req) => {
      seen.push(req);
      return { text: '{"WFWorkflowActionIdentifier": "Finish"}', toolCalls: [], usage, latencyMs: 1 };
    };
    expect(await modelStepper(turn)(step)).toEqual({
      text: '{"WFWorkflowActionIdentifier": "Finish"}',
      usage,
    });
    expect(seen).toEqual([{ system: 'SYS', messages: [{ role: 'user', content: 'USER' }] }]);
  });
  it('ends the shortcut on a context-length or safety error and rethrows any other', async () => {
    const fail =
      (message: string): TurnTaker =>
      async () => {
        throw new Error('call failed', { cause: new Error(message) });
      };
    expect(await modelStepper(fail("This model's maximum context length is 8192 tokens"))(step)).toEqual({
      endShortcut: 'call failed',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    await expect(modelStepper(fail('ECONNRESET'))(step)).rejects.toThrow('call failed');
    expect(isContextOrSafetyError({ responseBody: '{"error":{"code":"content_filter"}}' })).toBe(true);
    expect(isContextOrSafetyError(new Error('rate limited'))).toBe(false);
  });
});

describe('parseShortcutsReply (official reply parsing)', () => {
  it('keeps floats apart from ints and reports unparseable replies', () => {
    const r = parseShortcutsReply('x {"a": 1.0, "b": 1} y');
    expect(r.state).toBe('generated_by_agent');
    expect(dumpsPythonJson(r.aseq as Json)).toBe('{"a": 1.0, "b": 1}');
    expect(parseShortcutsReply('{"a": 1} {"b": 2}')).toEqual({
      state: 'json_error',
      aseq: '{"a": 1} {"b": 2}',
    });
    expect(dumpsPythonJson(parseShortcutsReply('[1, 2]').aseq as Json)).toBe('[1, 2]');
  });
});

describe('teacher-forced solver events', () => {
  it('per evaluated step the model turn, the proposed action and the gold shown next; one stop with the usage', async () => {
    const replies = [
      URLENCODE_REPLY,
      'not json',
      '{"WFWorkflowActionIdentifier": "is.workflow.actions.openurl", "WFWorkflowActionParameters": {}}',
    ];
    let n = 0;
    const turn: TurnTaker = async () => ({ text: replies[n++]!, toolCalls: [], usage, latencyMs: 1 });
    const events = memoryAgentTrace();
    await solveShortcut(shortcut6, apis, 0, modelStepper(turn), undefined, events);
    expect(
      events.events.map((e) =>
        e.type === 'turn'
          ? [e.type, e.step, e.usage.inputTokens]
          : e.type === 'proposal'
            ? [e.type, e.step, e.tool, e.args]
            : e.type === 'observation'
              ? [e.type, e.step, JSON.parse(e.text).WFWorkflowActionIdentifier]
              : e.type === 'stop'
                ? [e.type, e.step, e.reason, e.usage]
                : [e.type],
      ),
    ).toEqual([
      ['turn', 1, 100],
      [
        'proposal',
        1,
        'is.workflow.actions.urlencode',
        '{"WFEncodeMode": "Encode", "WFInput": {"Value": {"VariableName": "word", "Type": "Variable"}}, "Rate": 1.0}',
      ],
      ['observation', 1, 'is.workflow.actions.urlencode'],
      ['turn', 2, 100],
      ['observation', 2, 'is.workflow.actions.url'],
      ['turn', 3, 100],
      ['proposal', 3, 'is.workflow.actions.openurl', '{}'],
      ['observation', 3, 'is.workflow.actions.openurl'],
      ['stop', 3, 'final', { inputTokens: 300, outputTokens: 21 }],
    ]);
  });

  it('a shortcut ended by the provider stops with model-error and the reason', async () => {
    const events = memoryAgentTrace();
    await solveShortcut(
      shortcut6,
      apis,
      0,
      async () => ({ endShortcut: 'context length exceeded', usage }),
      undefined,
      events,
    );
    expect(events.events).toEqual([
      {
        type: 'stop',
        step: 1,
        reason: 'model-error',
        answer: null,
        detail: 'context length exceeded',
        usage,
        totalMs: expect.any(Number),
      },
    ]);
  });
});
