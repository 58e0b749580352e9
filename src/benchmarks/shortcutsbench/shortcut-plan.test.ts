import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePlanText, printPlanText } from '../../plan/index.js';
import { parseJson } from './json-value.js';
import { readShortcutFile } from './shortcut-file.js';
import { planAppAndApi, shortcutToPlan } from './shortcut-plan.js';

const WEATHER = join(import.meta.dirname, '__fixtures__', 'my-shortcuts', 'weather.shortcut');
const action = (id: string, params: string) =>
  parseJson(
    `{"WFWorkflowActionIdentifier": "is.workflow.actions.${id}", "WFWorkflowActionParameters": ${params}}`,
  );
const out = (uuid: string, name: string) =>
  `{"Value": {"Type": "ActionOutput", "OutputUUID": "${uuid}", "OutputName": "${name}"}, "WFSerializationType": "WFTextTokenAttachment"}`;

describe('shortcutToPlan', () => {
  it('turns the top-level calls of the weather shortcut into plan lines with references', () => {
    const { plan, stepOf, gaps } = shortcutToPlan(readShortcutFile(WEATHER).actions);
    expect(printPlanText(plan)).toBe(
      [
        "is.workflow.actions: [Provided_Input = is.workflow.actions.ask(#WFAskActionPrompt='Which city?', #WFInputType='Text')]",
        'is.workflow.actions: [URL = is.workflow.actions.url()]',
        "is.workflow.actions: [Contents_of_URL = is.workflow.actions.downloadurl(#WFHTTPMethod='GET', #WFURL=URL)]",
        // the variable Report is set once from downloadurl's output: its uses are references to it
        'is.workflow.actions: [is.workflow.actions.setclipboard(#WFInput=Contents_of_URL)]',
        'is.workflow.actions: [is.workflow.actions.showresult(#Text=Contents_of_URL)]',
        'is.workflow.actions: [is.workflow.actions.setclipboard(#WFInput=$current_date)]',
      ].join('\n'),
    );
    expect([...stepOf]).toEqual([
      [1, 's1'],
      [2, 's2'],
      [3, 's3'],
      [10, 's4'],
      [11, 's5'],
      [12, 's6'],
    ]);
    expect(gaps.map((g) => [g.index, g.param ?? null, g.reason])).toEqual([
      [0, null, 'a comment'],
      [2, 'WFURLActionURL', 'text with embedded references (a plan argument is one value)'],
      [4, null, 'sets variable "Report" (its uses become references to the output)'],
      [5, null, 'control flow (If) has no plan equivalent'],
      [6, null, 'inside an If, Menu or Repeat block (a plan has no control flow)'],
      [7, null, 'control flow (Otherwise) has no plan equivalent'],
      [8, null, 'inside an If, Menu or Repeat block (a plan has no control flow)'],
      [9, null, 'control flow (End If) has no plan equivalent'],
    ]);
  });

  it('prints text that parses back to the same plan', () => {
    const { plan } = shortcutToPlan(readShortcutFile(WEATHER).actions);
    const back = parsePlanText(printPlanText(plan)).plan;
    expect(back).toEqual(plan);
  });

  it('maps Ask, system inputs, single-reference text; reports property access, lists, unresolved variables', () => {
    const { plan, gaps } = shortcutToPlan([
      action('getclipboard', '{"UUID": "A"}'),
      action(
        'sendemail',
        `{"WFSendEmailActionToRecipients": {"Value": {"Type": "Ask", "Prompt": "To?"}}, "WFSendEmailActionSubject": {"Value": {"string": "\uFFFC", "attachmentsByRange": {"{0, 1}": {"Type": "ActionOutput", "OutputUUID": "A", "OutputName": "Clipboard"}}}},
          "Body": {"Value": {"string": "plain", "attachmentsByRange": {}}}, "WFInput": {"Value": {"Type": "ExtensionInput"}}, "Count": 2, "Items": [1, 2],
          "Key": {"Value": {"Type": "ActionOutput", "OutputUUID": "A", "OutputName": "Clipboard", "Aggrandizements": [{"Type": "WFPropertyVariableAggrandizement", "PropertyName": "Name"}]}},
          "V": {"Value": {"Type": "Variable", "VariableName": "Twice"}}}`,
      ),
      action('setvariable', `{"WFVariableName": "Twice", "WFInput": ${out('A', 'Clipboard')}}`),
      action('setvariable', `{"WFVariableName": "Twice", "WFInput": ${out('A', 'Clipboard')}}`),
      action('showresult', `{"Text": ${out('Z', 'Nothing')}}`),
    ]);
    expect(printPlanText(plan)).toBe(
      [
        'is.workflow.actions: [Clipboard = is.workflow.actions.getclipboard()]',
        "is.workflow.actions: [is.workflow.actions.sendemail(#WFSendEmailActionToRecipients=?'To?', #WFSendEmailActionSubject=Clipboard, #Body='plain', #WFInput=$shared_input, #Count=2)]",
        'is.workflow.actions: [is.workflow.actions.showresult()]',
      ].join('\n'),
    );
    expect(gaps.map((g) => [g.index, g.param ?? null, g.reason])).toEqual([
      [1, 'Items', 'a list value (plans take scalars and references)'],
      [1, 'Key', 'takes a part of a value (WFPropertyVariableAggrandizement); plans pass whole outputs'],
      [
        1,
        'V',
        'named variable "Twice" is not one previous output (set more than once, appended to, inside a block, or not set from an output)',
      ],
      [2, null, 'named variable "Twice" bookkeeping'],
      [3, null, 'named variable "Twice" bookkeeping'],
      [4, 'Text', 'refers to output Z, which no earlier action produces'],
    ]);
  });

  it('follows getvariable to the aliased output and refuses references into blocks', () => {
    const { plan, gaps } = shortcutToPlan([
      action('getbatterylevel', '{"UUID": "B"}'),
      action('setvariable', `{"WFVariableName": "Level", "WFInput": ${out('B', 'Battery Level')}}`),
      action(
        'getvariable',
        '{"UUID": "G", "WFVariable": {"Value": {"Type": "Variable", "VariableName": "Level"}}, "WFVariableName": "Level"}',
      ),
      action('showresult', `{"Text": ${out('G', 'Variable')}}`),
      action('repeat.count', '{"GroupingIdentifier": "R", "WFControlFlowMode": 0, "WFRepeatCount": 2}'),
      action('getclipboard', '{"UUID": "C"}'),
      action('repeat.count', '{"GroupingIdentifier": "R", "WFControlFlowMode": 2, "UUID": "E"}'),
      action('showresult', `{"Text": ${out('C', 'Clipboard')}}`),
    ]);
    expect(printPlanText(plan)).toBe(
      [
        'is.workflow.actions: [Battery_Level = is.workflow.actions.getbatterylevel()]',
        'is.workflow.actions: [is.workflow.actions.showresult(#Text=Battery_Level)]',
        'is.workflow.actions: [is.workflow.actions.showresult()]',
      ].join('\n'),
    );
    expect(gaps.at(-1)).toEqual({
      index: 7,
      id: 'is.workflow.actions.showresult',
      param: 'Text',
      reason: 'refers to the output of action 5, which is not a plan step',
    });
  });

  it('getvariable of a magic variable passes that output on; an unknown variable is a gap naming it', () => {
    const { plan, gaps } = shortcutToPlan([
      action('getclipboard', '{"UUID": "C"}'),
      action('getvariable', `{"UUID": "G", "WFVariable": ${out('C', 'Clipboard')}}`),
      action('showresult', `{"Text": ${out('G', 'Variable')}}`),
      action('getvariable', '{"WFVariable": {"Value": {"Type": "Variable", "VariableName": "Nope"}}}'),
    ]);
    expect(plan.steps[1]!.args).toEqual({ Text: { kind: 'ref', step: 's1', output: 'Clipboard' } });
    expect(gaps.map((g) => g.reason)).toEqual([
      'reads an ActionOutput reference (references to it go to its output)',
      'reads variable "Nope": named variable "Nope" is not one previous output (set more than once, appended to, inside a block, or not set from an output)',
    ]);
  });

  it('names apps and APIs so the plan text reads back', () => {
    expect(planAppAndApi('is.workflow.actions.filter.files')).toEqual({
      app: 'is.workflow.actions',
      api: 'is.workflow.actions.filter.files',
    });
    expect(planAppAndApi('com.apple.mobilenotes.SharingExtension')).toEqual({
      app: 'com.apple.mobilenotes',
      api: 'com.apple.mobilenotes.SharingExtension',
    });
  });
});
