import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parsePlanText, printPlanText, validatePlan } from '../../plan/index.js';
import { InputInvalidError } from '../../shared/index.js';
import { shortcutsCatalogSource } from './catalog.js';
import { parseShortcutBytes, readShortcutFile } from './shortcut-file.js';
import { shortcutsApiLookup, shortcutToPlan } from './shortcut-plan.js';

/** Hand-built plists of the shapes real files have (written by __fixtures__/author-real-shapes.ts). */
const FIXTURES = join(import.meta.dirname, '__fixtures__');
const SHAPES = join(FIXTURES, 'real-shapes');
const catalog = shortcutsCatalogSource.load({});
const lookup = shortcutsApiLookup(catalog);
const planOf = (name: string) =>
  shortcutToPlan(readShortcutFile(join(SHAPES, `${name}.plist`)).actions, lookup);
const lines = (...l: string[]) => l.join('\n');
const B = 'is.workflow.actions';

describe('to-plan on the shapes of real shortcut files', () => {
  it('(3) getvariable reads the variable named in its WFVariable attachment', () => {
    const { plan, gaps, implicit } = planOf('getvariable');
    expect(printPlanText(plan)).toBe(
      lines(
        `${B}: [Battery_Level = ${B}.getbatterylevel()]`,
        `${B}: [${B}.showresult(#Text=Battery_Level)]`,
        `${B}: [${B}.showresult(#Text=Battery_Level)]`,
      ),
    );
    expect(gaps.map((g) => [g.index, g.reason])).toEqual([
      [1, 'sets variable "Level" (its uses become references to the output)'],
      [2, 'reads variable "Level" (references to it go to its output)'],
      [4, 'reads variable "Level" (references to it go to its output)'],
    ]);
    expect(implicit).toEqual([{ index: 5, id: `${B}.showresult`, param: 'Text', from: 4 }]);
  });

  it('(4) output names in other scripts or with accents stay distinct and readable back', () => {
    const { plan } = planOf('unicode-names');
    expect(plan.steps.map((s) => s.outputs)).toEqual([
      ['u5929_u6c14'],
      ['u6e29_u5ea6'],
      ['Temperature'],
      ['Temperature_2'],
      [],
      [],
      [],
      [],
    ]);
    expect(plan.steps.slice(4).map((s) => s.args.Text)).toEqual([
      { kind: 'ref', step: 's1', output: 'u5929_u6c14' },
      { kind: 'ref', step: 's2', output: 'u6e29_u5ea6' },
      { kind: 'ref', step: 's3', output: 'Temperature' },
      { kind: 'ref', step: 's4', output: 'Temperature_2' },
    ]);
  });

  it('(1) an action that takes an input and sets none gets the previous output, listed as implicit', () => {
    const { plan, gaps, implicit } = planOf('implicit-input');
    expect(printPlanText(plan)).toBe(
      lines(
        `${B}: [Provided_Input = ${B}.ask(#WFAskActionPrompt='Degrees Celsius?', #WFInputType='Number')]`,
        `${B}: [Calculation_Result = ${B}.math(#WFMathOperation='×', #WFMathOperand=9, #WFInput=Provided_Input)]`,
        `${B}: [Calculation_Result_2 = ${B}.math(#WFMathOperation='÷', #WFMathOperand=5, #WFInput=Calculation_Result)]`,
        `${B}: [Calculation_Result_3 = ${B}.math(#WFMathOperation='+', #WFMathOperand=32, #WFInput=Calculation_Result_2)]`,
        `${B}: [${B}.showresult(#Text=Calculation_Result_3)]`,
      ),
    );
    expect(implicit.map((i) => [i.index, i.param, i.from])).toEqual([
      [1, 'WFInput', 0],
      [2, 'WFInput', 1],
      [4, 'WFInput', 2], // the comment between passes the value on
      [5, 'Text', 4],
    ]);
    expect(gaps).toEqual([{ index: 3, id: `${B}.comment`, reason: 'a comment' }]);
  });

  it('(2) a variable is the output it was set from, even when a copied action reuses the UUID', () => {
    const { plan } = planOf('copied-uuid');
    expect(plan.steps.slice(2).map((s) => s.args.Text)).toEqual([
      { kind: 'ref', step: 's1', output: 'Text' }, // Kept = the first gettext
      { kind: 'ref', step: 's2', output: 'Text_2' }, // the UUID now names the copy
    ]);
  });

  it('(7) malformed XML is one INPUT_INVALID naming the file, and xmldom prints nothing', () => {
    const file = join(SHAPES, 'malformed.plist');
    const stderr = vi.spyOn(console, 'error');
    try {
      expect(() => readShortcutFile(file)).toThrow(InputInvalidError);
      expect(() => readShortcutFile(file)).toThrow(
        `${file}: not a readable xml-plist: line 7: </string> where </key> was expected`,
      );
      // xmldom only warns about this one and would read on
      const unquoted = '<?xml version="1.0"?>\n<plist version=1.0><dict></dict></plist>';
      expect(() => parseShortcutBytes(Buffer.from(unquoted), 'x.plist')).toThrow(
        'x.plist: not a readable xml-plist: line 2: attribute "1.0" missed quot(")!',
      );
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
    }
  });

  it('(5) Workflow 1.7 blocks whose first marker has no mode are blocks, not unconditional steps', () => {
    const { plan, gaps } = planOf('workflow-1.7');
    expect(printPlanText(plan)).toBe(
      lines(`${B}: [Battery_Level = ${B}.getbatterylevel()]`, `${B}: [${B}.showresult(#Text=Battery_Level)]`),
    );
    expect(gaps.map((g) => [g.index, g.reason])).toEqual([
      [1, 'control flow (If (no mode)) has no plan equivalent'],
      [2, 'inside an If, Menu or Repeat block (a plan has no control flow)'],
      [3, 'control flow (Otherwise) has no plan equivalent'],
      [4, 'inside an If, Menu or Repeat block (a plan has no control flow)'],
      [5, 'control flow (End If) has no plan equivalent'],
      [6, 'control flow (Repeat (no mode)) has no plan equivalent'],
      [7, 'inside an If, Menu or Repeat block (a plan has no control flow)'],
      [8, 'control flow (End Repeat) has no plan equivalent'],
    ]);
  });

  it('(6) every fixture plan validates against --catalog shortcuts', () => {
    const files = [
      ...readdirSync(SHAPES)
        .filter((f) => f !== 'malformed.plist')
        .map((f) => join(SHAPES, f)),
      join(FIXTURES, 'my-shortcuts', 'weather.shortcut'),
      join(FIXTURES, 'my-shortcuts', 'battery.plist'),
    ];
    const issues = files.flatMap((f) =>
      validatePlan(shortcutToPlan(readShortcutFile(f).actions, lookup).plan, catalog).map((i) => ({
        f,
        ...i,
      })),
    );
    expect(issues).toEqual([]);
  });

  it('every fixture plan prints as text that reads back to the same plan (names in any script included)', () => {
    for (const f of readdirSync(SHAPES).filter((x) => x !== 'malformed.plist')) {
      const { plan } = planOf(f.replace(/\.plist$/, ''));
      expect(parsePlanText(printPlanText(plan)).plan, f).toEqual(plan);
    }
  });
});
