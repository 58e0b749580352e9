import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson } from './json-value.js';
import { readShortcutFile } from './shortcut-file.js';
import { describeShortcut, describeValue, formatShortcutListing } from './shortcut-listing.js';

const WEATHER = join(import.meta.dirname, '__fixtures__', 'my-shortcuts', 'weather.shortcut');

describe('describeShortcut', () => {
  const listing = describeShortcut(readShortcutFile(WEATHER).actions);

  it('gives each action its class, control-flow role, depth and output', () => {
    expect(
      listing.actions.map((a) => [a.index, a.class, a.control ?? null, a.depth, a.outputName ?? null]),
    ).toEqual([
      [0, 'filter', null, 0, null],
      [1, 'ignore', null, 0, 'Provided Input'],
      [2, 'evaluated', null, 0, 'URL'],
      [3, 'evaluated', null, 0, 'Contents of URL'],
      [4, 'ignore', null, 0, null],
      [5, 'ignore', 'If', 0, null],
      [6, 'evaluated', null, 1, null],
      [7, 'ignore', 'Otherwise', 0, null],
      [8, 'evaluated', null, 1, null],
      [9, 'ignore', 'End If', 0, null],
      [10, 'evaluated', null, 0, null],
      [11, 'evaluated', null, 0, null],
      [12, 'evaluated', null, 0, null],
    ]);
    // ask 1 + url 1 + downloadurl 1 + setvariable 1 + if max(1, 1) + 3 plain = 8 → L3
    expect([listing.length, listing.level]).toEqual([8, 3]);
  });

  it('renders every value form', () => {
    const params = (i: number) => listing.actions[i]!.params.map((p) => [p.name, p.form, p.text]);
    expect(params(2)).toEqual([
      ['WFURLActionURL', 'token-string', '"https://wttr.in/{@1 \\"Provided Input\\"}?format=3"'],
    ]);
    expect(params(3)).toEqual([
      ['WFHTTPMethod', 'literal', '"GET"'],
      ['WFURL', 'previous-output', '@2 "URL"'],
    ]);
    expect(params(5)).toEqual([
      ['WFCondition', 'literal', '99'],
      ['WFConditionalActionString', 'literal', '"Sunny"'],
      ['WFInput', 'conditional-input', 'var:Report'],
    ]);
    expect(params(8)[0]).toEqual(['WFSpeakTextRate', 'literal', '0.5']);
    expect(listing.actions[10]!.params).toEqual([
      {
        name: 'WFInput',
        form: 'variable',
        text: 'var:Report as WFStringContentItem',
        aggrandizements: ['WFCoercionVariableAggrandizement'],
      },
    ]);
    expect(params(12)).toEqual([['WFInput', 'system-input', '$CurrentDate']]);
  });

  it('lists the named variables and the inputs read', () => {
    expect(listing.variables).toEqual([{ name: 'Report', setAt: [4], appendedAt: [], usedAt: [5, 10, 11] }]);
    expect(listing.inputs).toEqual(['CurrentDate']);
  });

  it('reports a control-flow action without GroupingIdentifier instead of a length', () => {
    const l = describeShortcut([
      parseJson(
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.repeat.count", "WFWorkflowActionParameters": {"WFControlFlowMode": 0}}',
      ),
    ]);
    expect([l.length, l.level]).toEqual([null, null]);
    expect(l.lengthProblem).toBe(
      'action 0 (is.workflow.actions.repeat.count) has no GroupingIdentifier (the official scorer crashes on it)',
    );
  });

  it('renders aggrandizements, Ask with its prompt and menu cases', () => {
    const v = parseJson(
      '{"Value": {"Type": "ActionOutput", "OutputUUID": "U", "OutputName": "Dictionary", "Aggrandizements": [' +
        '{"Type": "WFDictionaryValueVariableAggrandizement", "DictionaryKey": "temp"}, {"Type": "WFPropertyVariableAggrandizement", "PropertyName": "Name"}]}}',
    );
    expect(describeValue('WFInput', v, new Map([['U', 4]])).text).toBe('@4 "Dictionary"["temp"].Name');
    expect(describeValue('Q', parseJson('{"Value": {"Type": "Ask", "Prompt": "City?"}}'))).toEqual({
      name: 'Q',
      form: 'ask',
      text: '?Ask "City?"',
    });
    const menu = describeShortcut(
      [
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.choosefrommenu", "WFWorkflowActionParameters": {"GroupingIdentifier": "M", "WFControlFlowMode": 0}}',
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.choosefrommenu", "WFWorkflowActionParameters": {"GroupingIdentifier": "M", "WFControlFlowMode": 1, "WFMenuItemTitle": "Tea"}}',
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.repeat.count", "WFWorkflowActionParameters": {"GroupingIdentifier": "R", "WFControlFlowMode": 0, "WFRepeatCount": 3}}',
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.vibrate", "WFWorkflowActionParameters": {}}',
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.repeat.count", "WFWorkflowActionParameters": {"GroupingIdentifier": "R", "WFControlFlowMode": 2}}',
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.choosefrommenu", "WFWorkflowActionParameters": {"GroupingIdentifier": "M", "WFControlFlowMode": 2}}',
      ].map(parseJson),
    );
    expect(menu.actions.map((a) => [a.control ?? a.id, a.depth])).toEqual([
      ['Menu', 0],
      ['Case "Tea"', 0],
      ['Repeat 3 times', 1],
      ['is.workflow.actions.vibrate', 2],
      ['End Repeat', 1],
      ['End Menu', 0],
    ]);
  });

  it('formats the listing for the terminal', () => {
    const text = formatShortcutListing('weather (xml-plist)', listing).split('\n');
    expect(text[0]).toBe('weather (xml-plist): 13 actions, length 8 (longest branch), level L3');
    expect(text).toContain('  5   If  (conditional)  [ignore]');
    expect(text).toContain('  6     notification');
    expect(text).toContain('          WFText = @3 "Contents of URL"  (previous-output)');
    expect(text.at(-2)).toBe('  Report: set at 4; appended at -; used at 5, 10, 11');
    expect(text.at(-1)).toBe('inputs: CurrentDate');
  });
});
