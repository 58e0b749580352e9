import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonActionFields, jsonActionProtocol } from '../../agents/index.js';
import type { TurnRequest } from '../../agents/runtime/types.js';
import { type GrammarJudge, loadGrammarJudge } from '../../models/grammar/__fixtures__/llama-judge.js';
import {
  shortcutsActionConstraint,
  shortcutsActionGrammar,
  shortcutsActionSchema,
} from './action-grammar.js';
import { parseShortcutsReply } from './reply.js';
import { modelStepper, type ShortcutStep, type ShortcutsApis } from './teacher-forced.js';

/** Parameters of every type the API files use, each optional; references carry an enum and a UUID pattern. */
const paraTypes: ShortcutsApis['paraTypes'] = {
  'is.workflow.actions.gettext': { WFTextActionText: 'String', 'ThisIsReturnValue:Text': 'String' },
  'is.workflow.actions.number': { WFNumberActionNumber: 'Float', WFCount: 'Integer = 1' },
  'is.workflow.actions.url': { WFURLActionURL: 'array(String)', WFShowWebPage: 'Bool = true' },
};
const candidates = Object.keys(paraTypes);

let judge: GrammarJudge;
beforeAll(async () => {
  judge = await loadGrammarJudge();
}, 30_000);
afterAll(async () => {
  await judge?.dispose();
});

describe('ShortcutsBench JSON-action grammar', () => {
  it('100 seeded generations of the tiny model: each reply is one action of a candidate (or Finish) that validates', async () => {
    const grammar = shortcutsActionGrammar(candidates, paraTypes, { maxStringLength: 6, maxItems: 2 });
    const outputs = await judge.generate(grammar, { count: 100, seed: 1, maxTokens: 500, temperature: 0.9 });
    const ajv = new Ajv({ strict: false });
    const protocol = jsonActionProtocol({ system: '' });
    const failures: string[] = [];
    const decisions: Record<string, number> = {};
    for (const text of outputs) {
      // the official (lossless) parser, then the protocol's own reading
      const official = parseShortcutsReply(text);
      if (official.state !== 'generated_by_agent') failures.push(`json error: ${text}`);
      const decision = protocol.parse(
        { text, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, latencyMs: 0 },
        [],
      );
      decisions[decision.kind] = (decisions[decision.kind] ?? 0) + 1;
      const value = JSON.parse(text) as unknown;
      const { id } = jsonActionFields(value);
      if (id === null || !(id === 'Finish' || candidates.includes(id))) {
        failures.push(`not a candidate: ${text}`);
        continue;
      }
      if (!ajv.validate(shortcutsActionSchema(id, paraTypes[id] ?? {}), value))
        failures.push(`${ajv.errorsText()}: ${text}`);
    }
    expect(failures).toEqual([]);
    expect(decisions['decode-failure'] ?? 0).toBe(0);
    expect((decisions.calls ?? 0) + (decisions.final ?? 0)).toBe(100);
    expect(decisions.calls).toBeGreaterThan(0);
  }, 60_000);

  it('accepts the prompt forms, refuses other APIs, wrong types, unknown parameters and bad UUIDs', async () => {
    const grammar = shortcutsActionGrammar(candidates, paraTypes);
    const ref = (value: string) => `{"Value": ${value}, "WFSerializationType": "WFTextTokenAttachment"}`;
    const act = (id: string, params: string) =>
      `{"Thought": "t", "WFWorkflowActionIdentifier": "${id}", "WFWorkflowActionParameters": ${params}}`;
    const texts = {
      primitive: act('is.workflow.actions.number', '{"WFNumberActionNumber": 2.5, "WFCount": 3}'),
      output: act(
        'is.workflow.actions.gettext',
        `{"WFTextActionText": ${ref('{"OutputUUID": "0F2C6A44-1B7E-4C1D-9A3B-7D5E2F1A0B9C", "Type": "ActionOutput", "OutputName": "URL"}')}}`,
      ),
      ask: act('is.workflow.actions.url', `{"WFShowWebPage": ${ref('{"Type": "Ask"}')}}`),
      finish: act('Finish', '{}'),
      otherApi: act('is.workflow.actions.alert', '{}'),
      wrongType: act('is.workflow.actions.number', '{"WFCount": "three"}'),
      unknownParam: act('is.workflow.actions.url', '{"WFColor": "red"}'),
      badUuid: act(
        'is.workflow.actions.gettext',
        `{"WFTextActionText": ${ref('{"OutputUUID": "not-a-uuid", "Type": "ActionOutput", "OutputName": "URL"}')}}`,
      ),
      badInput: act('is.workflow.actions.url', `{"WFShowWebPage": ${ref('{"Type": "Camera"}')}}`),
    };
    const verdicts: Record<string, boolean> = {};
    for (const [k, t] of Object.entries(texts)) verdicts[k] = await judge.accepts(grammar, t);
    expect(verdicts).toEqual({
      primitive: true,
      output: true,
      ask: true,
      finish: true,
      otherApi: false,
      wrongType: false,
      unknownParam: false,
      badUuid: false,
      badInput: false,
    });
  });

  it('the model stepper sends the step constraint (memoised per candidate list), none without it', async () => {
    const apis: ShortcutsApis = { info: new Map(), paraTypes, defaultOutputs: new Map() };
    const step = {
      position: 0,
      query: 'q',
      system: 's',
      user: 'u',
      history: [],
      candidates: { promptOrder: candidates },
    } as unknown as ShortcutStep;
    const constraintOf = shortcutsActionConstraint(apis);
    expect(constraintOf(step)).toBe(constraintOf(step));
    for (const constrained of [true, false]) {
      const requests: TurnRequest[] = [];
      const stepper = modelStepper(
        async (request) => {
          requests.push(request);
          return { text: '{}', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, latencyMs: 1 };
        },
        constrained ? { constraint: constraintOf } : {},
      );
      await stepper(step);
      expect(requests.map((r) => r.constraint ?? null)).toEqual([constrained ? constraintOf(step) : null]);
    }
  });
});
