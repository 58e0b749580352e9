/**
 * Writes `real-shapes/`: small XML plists we built by hand, each reproducing one shape that real public
 * shortcut files have and that `apiary shortcuts to-plan` once mapped wrong (issue 26, "Shortcuts" 1–7).
 * Run: `npx tsx src/benchmarks/shortcutsbench/__fixtures__/author-real-shapes.ts`. UUIDs are invented.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type PlistValue } from 'plist';

const P = 'is.workflow.actions.';
type Params = Record<string, PlistValue>;
const action = (id: string, params: Params = {}) => ({
  WFWorkflowActionIdentifier: P + id,
  WFWorkflowActionParameters: params,
});
const uuid = (n: number) => `A0A0A0A0-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** A whole-value reference to an earlier action's output, as the editor stores it. */
const output = (n: number, name: string) => ({
  Value: { OutputUUID: uuid(n), Type: 'ActionOutput', OutputName: name },
  WFSerializationType: 'WFTextTokenAttachment',
});
const variable = (name: string) => ({
  Value: { Type: 'Variable', VariableName: name },
  WFSerializationType: 'WFTextTokenAttachment',
});

const shapes: Record<string, ReturnType<typeof action>[]> = {
  // 1: each math action takes the previous output without naming it (Celsius → Fahrenheit)
  'implicit-input': [
    action('ask', { WFAskActionPrompt: 'Degrees Celsius?', WFInputType: 'Number', UUID: uuid(1) }),
    action('math', { WFMathOperation: '×', WFMathOperand: 9 }),
    action('math', { WFMathOperation: '÷', WFMathOperand: 5 }),
    action('comment', { WFCommentActionText: 'then add 32' }),
    action('math', { WFMathOperation: '+', WFMathOperand: 32 }),
    action('showresult', {}),
  ],
  // 2: the second gettext was copied from the first and kept its UUID
  'copied-uuid': [
    action('gettext', { WFTextActionText: 'first', UUID: uuid(2) }),
    action('setvariable', { WFVariableName: 'Kept', WFInput: output(2, 'Text') }),
    action('gettext', { WFTextActionText: 'second', UUID: uuid(2) }),
    action('showresult', { Text: variable('Kept') }),
    action('showresult', { Text: output(2, 'Text') }),
  ],
  // 3: getvariable names its variable only in the WFVariable attachment
  getvariable: [
    action('getbatterylevel', { UUID: uuid(3) }),
    action('setvariable', { WFVariableName: 'Level', WFInput: output(3, 'Battery Level') }),
    action('getvariable', { WFVariable: variable('Level'), UUID: uuid(4) }),
    action('showresult', { Text: output(4, 'Variable') }),
    action('getvariable', { WFVariable: variable('Level') }),
    action('showresult', {}),
  ],
  // 4: custom output names in other scripts and with accents
  'unicode-names': [
    action('gettext', { WFTextActionText: '晴', UUID: uuid(5), CustomOutputName: '天气' }),
    action('gettext', { WFTextActionText: '21', UUID: uuid(6), CustomOutputName: '温度' }),
    action('gettext', { WFTextActionText: '21 °C', UUID: uuid(7), CustomOutputName: 'Température' }),
    action('gettext', { WFTextActionText: '70 °F', UUID: uuid(8), CustomOutputName: 'Temperature' }),
    action('showresult', { Text: output(5, '天气') }),
    action('showresult', { Text: output(6, '温度') }),
    action('showresult', { Text: output(7, 'Température') }),
    action('showresult', { Text: output(8, 'Temperature') }),
  ],
  // 5: Workflow 1.7 stores no WFControlFlowMode on the first marker of an if or a repeat
  'workflow-1.7': [
    action('getbatterylevel', { UUID: uuid(9) }),
    action('conditional', { GroupingIdentifier: 'G1', WFCondition: 'Is Less Than', WFNumberValue: 20 }),
    action('notification', { WFNotificationActionBody: 'Charge me' }),
    action('conditional', { GroupingIdentifier: 'G1', WFControlFlowMode: 1 }),
    action('speaktext', { WFText: 'Enough battery' }),
    action('conditional', { GroupingIdentifier: 'G1', WFControlFlowMode: 2, UUID: uuid(10) }),
    action('repeat.count', { GroupingIdentifier: 'G2', WFRepeatCount: 3 }),
    action('vibrate', {}),
    action('repeat.count', { GroupingIdentifier: 'G2', WFControlFlowMode: 2, UUID: uuid(11) }),
    action('showresult', { Text: output(9, 'Battery Level') }),
  ],
};

const dir = join(import.meta.dirname, 'real-shapes');
mkdirSync(dir, { recursive: true });
for (const [name, actions] of Object.entries(shapes))
  writeFileSync(join(dir, `${name}.plist`), `${build({ WFWorkflowActions: actions })}\n`);
// 7: an XML plist whose tags do not match (an editor or a truncated download does this)
writeFileSync(
  join(dir, 'malformed.plist'),
  '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict>\n\t<key>WFWorkflowActions</key>\n\t<array>\n\t\t<dict>\n\t\t\t<key>WFWorkflowActionIdentifier</string>\n\t\t</dict>\n\t</array>\n</dict>\n</plist>\n',
);
