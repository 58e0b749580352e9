/**
 * Writes the authored ShortcutsBench fixtures (ours, not upstream data) into `authored/` in the
 * official formats: `npx tsx src/benchmarks/shortcutsbench/__fixtures__/author-fixtures.ts`.
 * The files are committed; this script is how they were written (edit here, re-run, and redo the
 * hand computation in authored-metrics.test.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dumpsPythonJson, type Json, LosslessNumber } from '../json-value.js';

type Plain = null | boolean | string | number | LosslessNumber | Plain[] | { [k: string]: Plain };

/** A float as Python would have parsed it (`f('1.0')` stays a float). */
const f = (lexeme: string) => new LosslessNumber(lexeme);

function toJson(v: Plain): Json {
  if (typeof v === 'number') return new LosslessNumber(String(v));
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof LosslessNumber || v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)]));
}

const P = 'is.workflow.actions.';
const url = (n: number) => `https://www.icloud.com/shortcuts/${'f1c0ffee'.padEnd(29, '0')}${n.toString().padStart(3, '0')}`;
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;
const act = (id: string, params: { [k: string]: Plain } = {}) => ({
  WFWorkflowActionIdentifier: P + id,
  WFWorkflowActionParameters: params,
});
/** A top-level reference (`WFTextTokenAttachment`). */
const att = (value: { [k: string]: Plain }) => ({ Value: value, WFSerializationType: 'WFTextTokenAttachment' });
const out = (n: number, name: string, extra: { [k: string]: Plain } = {}) => ({
  OutputUUID: uuid(n),
  Type: 'ActionOutput',
  OutputName: name,
  ...extra,
});
const sys = (type: string) => att({ Type: type });
/** A token string; `refs` are placed at each U+FFFC in order. */
function tokens(text: string, refs: { [k: string]: Plain }[]) {
  const byRange: { [k: string]: Plain } = {};
  let from = 0;
  for (const r of refs) {
    const at = text.indexOf('\uFFFC', from);
    byRange[`{${at}, 1}`] = r;
    from = at + 1;
  }
  return { Value: { string: text, attachmentsByRange: byRange }, WFSerializationType: 'WFTextTokenString' };
}
const flow = (id: string, group: string, mode: number, extra: { [k: string]: Plain } = {}) =>
  act(id, { GroupingIdentifier: group, WFControlFlowMode: mode, ...extra });

/** A prediction: a parsed reply (`generated_by_agent`) or an unparseable one (`json_error`). */
const said = (id: string, params?: { [k: string]: Plain }) => ({
  state: 'generated_by_agent',
  aseq: {
    Thought: 'next step',
    WFWorkflowActionIdentifier: id.startsWith('is.') ? id : P + id,
    ...(params ? { WFWorkflowActionParameters: params } : {}),
  },
});
const reply = (aseq: Plain) => ({ state: 'generated_by_agent', aseq });
const unparsed = (raw: string) => ({ state: 'json_error', aseq: raw });

interface Authored {
  n: number;
  name: string;
  query: string;
  category: string;
  actions: ReturnType<typeof act>[];
  /** Number of gold actions in the result record (fewer: generation aborted). */
  kept?: number;
  distractors: string[];
  /** Prediction per evaluated index (FILTER/IGNORE ones are copied from the gold). */
  predictions: Record<number, Plain>;
  /** position → param → essential? (absent: no check-intersection entry for the URL). */
  essential?: Record<number, Record<string, boolean>>;
}

const S: Authored[] = [
  {
    n: 1,
    name: 'Battery',
    query: 'How much battery do I have left?',
    category: 'Productivity & Utilities',
    actions: [act('comment', { WFCommentActionText: 'battery' }), act('getbatterylevel', { UUID: uuid(101) })],
    distractors: ['setbrightness', 'vibrate', 'nothing'],
    predictions: { 1: said('getbatterylevel', {}) },
  },
  {
    n: 2,
    name: 'Copy the date',
    query: 'Copy the current date to my clipboard.',
    category: 'Productivity & Utilities',
    actions: [act('setclipboard', { WFInput: sys('CurrentDate') })],
    distractors: ['getclipboard', 'date', 'format.date', 'showresult'],
    predictions: { 0: said('setclipboard', { WFInput: { Value: { Type: 'CurrentDate' } } }) },
  },
  {
    n: 3,
    name: 'Speak clipboard',
    query: 'Read my clipboard aloud slowly.',
    category: 'Entertainment & Media',
    actions: [act('speaktext', { WFText: sys('Clipboard'), WFSpeakTextRate: f('0.3') })],
    distractors: ['getclipboard', 'showresult', 'notification', 'vibrate', 'delay'],
    predictions: {
      0: unparsed(
        '{"WFWorkflowActionIdentifier": "is.workflow.actions.getclipboard"} {"WFWorkflowActionIdentifier": "is.workflow.actions.speaktext"}',
      ),
    },
    essential: { 0: { WFSpeakTextRate: true } },
  },
  {
    n: 4,
    name: 'Device name',
    query: 'Notify me with the name of this device, with a sound.',
    category: 'Productivity & Utilities',
    actions: [
      act('getdevicedetails', { WFDeviceDetail: 'Device Name', UUID: uuid(401) }),
      act('notification', {
        WFNotificationActionBody: att(out(401, 'Device Details')),
        WFNotificationActionSound: true,
        WFInput: att({
          Type: 'DeviceDetails',
          Aggrandizements: [{ Type: 'WFPropertyVariableAggrandizement', PropertyName: 'Device Model' }],
        }),
      }),
    ],
    distractors: ['getbatterylevel', 'showresult', 'speaktext', 'setclipboard', 'vibrate', 'getwifi'],
    predictions: {
      0: said('getdevicedetails', { WFDeviceDetail: 'device name' }),
      1: said('notification', {
        WFNotificationActionBody: { Value: { Type: 'ActionOutput', OutputName: 'Device Details' } },
        WFNotificationActionSound: 'true',
        WFInput: { Value: { Type: 'DeviceDetails' } },
      }),
    },
    essential: { 0: { WFDeviceDetail: true }, 1: { WFNotificationActionSound: true } },
  },
  {
    n: 5,
    name: 'Volume menu',
    query: 'Let me choose between turning the volume all the way up or down to 20%.',
    category: 'Entertainment & Media',
    actions: [
      flow('choosefrommenu', 'M5', 0, { WFMenuPrompt: 'Volume', WFMenuItems: ['Louder', 'Quieter'] }),
      flow('choosefrommenu', 'M5', 1, { WFMenuItemTitle: 'Louder' }),
      act('setvolume', { WFVolume: f('1.0') }),
      act('vibrate', { WFVibrateHapticType: 'Default' }),
      flow('choosefrommenu', 'M5', 1, { WFMenuItemTitle: 'Quieter' }),
      act('setvolume', { WFVolume: f('0.2') }),
      flow('choosefrommenu', 'M5', 2, { UUID: uuid(501) }),
      act('showresult', { Text: tokens('Chose \uFFFC', [out(501, 'Menu Result')]) }),
    ],
    distractors: [
      'getbatterylevel',
      'flashlight',
      'delay',
      'setbrightness',
      'nothing',
      'dnd.set',
      'wifi.set',
      'bluetooth.set',
      'speaktext',
    ],
    predictions: {
      2: said('setvolume', { WFVolume: 1 }),
      3: said('vibrate', { WFVibrateHapticType: 'Default' }),
      5: said('setbrightness', { WFBrightness: '0.2' }),
      7: said('showresult', { Text: 'Chose ${Value1}' }),
    },
    essential: { 2: { WFVolume: true }, 3: { WFVibrateHapticType: true }, 5: { WFVolume: true } },
  },
  {
    n: 6,
    name: 'Search a word',
    query: 'Ask me for a word and search DuckDuckGo for it.',
    category: 'Education & Reference',
    actions: [
      act('ask', { WFAskActionPrompt: 'Which word?', WFInputType: 'Text', UUID: uuid(601) }),
      act('setvariable', { WFVariableName: 'word', WFInput: att(out(601, 'Provided Input')) }),
      act('urlencode', {
        WFInput: att({ Type: 'Variable', VariableName: 'word' }),
        WFEncodeMode: 'Encode',
        UUID: uuid(602),
      }),
      act('url', {
        WFURLActionURL: tokens('https://duckduckgo.com/?q=\uFFFC', [out(602, 'URL Encoded Text')]),
        UUID: uuid(603),
      }),
      act('openurl', { WFInput: att(out(603, 'URL')) }),
    ],
    distractors: [
      'searchweb',
      'showdefinition',
      'text.split',
      'detect.link',
      'showresult',
      'getclipboard',
      'base64encode',
      'hash',
      'readinglist',
      'downloadurl',
      'getvalueforkey',
      'dictionary',
    ],
    predictions: {
      2: said('urlencode', {
        WFEncodeMode: 'Encode',
        WFInput: { Value: { Type: 'Variable', VariableName: 'word' } },
      }),
      3: said('url', {}),
      // another action's UUID, the right output name
      4: said('openurl', { WFInput: { Value: { Type: 'ActionOutput', OutputUUID: uuid(602), OutputName: 'URL' } } }),
    },
    essential: { 2: { WFEncodeMode: true } },
  },
  {
    n: 7,
    name: 'Open a link',
    query: 'Open the link I share, or the one on my clipboard, then buzz three times and ask me for a note.',
    category: 'Productivity & Utilities',
    actions: [
      act('comment', { WFCommentActionText: 'open links' }),
      flow('conditional', 'C7', 0, {
        WFCondition: 100,
        WFInput: { Type: 'Variable', Variable: sys('ExtensionInput') },
      }),
      act('detect.link', { WFInput: sys('ExtensionInput'), UUID: uuid(701) }),
      act('openurl', { WFInput: att(out(701, 'URLs')) }),
      flow('conditional', 'C7', 1),
      act('getclipboard', { UUID: uuid(702) }),
      act('detect.link', { WFInput: sys('Clipboard'), UUID: uuid(703) }),
      act('openurl', { WFInput: att(out(703, 'URLs')) }),
      flow('conditional', 'C7', 2, { UUID: uuid(704) }),
      flow('repeat.count', 'R7', 0, { WFRepeatCount: 3 }),
      act('vibrate', { WFVibrateHapticType: 'Default' }),
      act('delay', { WFDelayTime: 1 }),
      flow('repeat.count', 'R7', 2, { UUID: uuid(705) }),
      act('notification', { WFNotificationActionBody: sys('Ask'), WFNotificationActionTitle: 'Note' }),
    ],
    distractors: [
      'searchweb',
      'url',
      'showresult',
      'speaktext',
      'setclipboard',
      'downloadurl',
      'readinglist',
      'text.split',
      'getwifi',
      'flashlight',
      'setbrightness',
      'dnd.set',
      'nothing',
      'hash',
    ],
    predictions: {
      2: said('detect.link', { WFInput: { Value: { Type: 'ExtensionInput' } } }),
      3: said('openurl', { WFInput: { Value: { Type: 'ActionOutput', OutputUUID: uuid(701) } } }),
      5: said('getclipboard', {}),
      6: said('detect.link', { WFInput: { Value: { Type: 'CurrentDate' } } }),
      7: said('openurl', {}),
      10: said('vibrate', { WFVibrateHapticType: 'Default' }),
      11: said('delay', { WFDelayTime: '1.0' }),
      13: said('notification', {
        WFNotificationActionBody: { Value: { Type: 'Ask' }, WFSerializationType: 'WFTextTokenAttachment' },
        WFNotificationActionTitle: 'Note',
      }),
    },
    essential: { 10: { WFVibrateHapticType: false }, 11: { WFDelayTime: true } },
  },
  {
    n: 8,
    name: 'Headlines',
    query: 'Fetch my feed and read out every headline.',
    category: 'Entertainment & Media',
    actions: [
      act('downloadurl', { WFURL: 'https://example.com/feed.json', WFHTTPMethod: 'GET', UUID: uuid(801) }),
      act('getvalueforkey', {
        WFDictionaryKey: 'items',
        WFGetDictionaryValueType: 'Value',
        WFInput: att(out(801, 'Contents of URL')),
        UUID: uuid(802),
      }),
      flow('repeat.each', 'R8', 0, { WFInput: att(out(802, 'Dictionary Value')) }),
      act('gettext', {
        WFTextActionText: tokens('- \uFFFC', [
          {
            Type: 'Variable',
            VariableName: 'Repeat Item',
            Aggrandizements: [{ Type: 'WFDictionaryValueVariableAggrandizement', DictionaryKey: 'title' }],
          },
        ]),
        UUID: uuid(803),
      }),
      act('appendvariable', { WFVariableName: 'lines', WFInput: att(out(803, 'Text')) }),
      flow('repeat.each', 'R8', 2, { UUID: uuid(804) }),
      act('getvariable', { WFVariable: att({ Type: 'Variable', VariableName: 'lines' }), UUID: uuid(805) }),
      act('showresult', {
        Text: tokens('\uFFFC', [
          out(805, 'Variable', {
            Aggrandizements: [
              { Type: 'WFCoercionVariableAggrandizement', CoercionItemClass: 'WFStringContentItem' },
            ],
          }),
        ]),
      }),
      act('speaktext', {
        WFText: att(
          out(805, 'Variable', {
            Aggrandizements: [{ Type: 'WFPropertyVariableAggrandizement', PropertyName: 'Name' }],
          }),
        ),
        WFSpeakTextRate: f('0.5'),
      }),
    ],
    distractors: [
      'url',
      'openurl',
      'notification',
      'dictionary',
      'list',
      'count',
      'text.split',
      'readinglist',
      'searchweb',
      'setclipboard',
      'base64encode',
      'hash',
    ],
    predictions: {
      // a list reply: parsed, but no action fields
      0: reply([{ WFWorkflowActionIdentifier: `${P}downloadurl`, WFWorkflowActionParameters: {} }]),
      // the right API without WFWorkflowActionParameters
      1: said('getvalueforkey'),
      7: said('showresult', { Text: 'x' }),
      8: said('speaktext', {
        WFText: { Value: { Type: 'Variable', VariableName: 'lines' } },
        WFSpeakTextRate: f('0.5'),
      }),
    },
    essential: {
      0: { WFHTTPMethod: true },
      1: { WFGetDictionaryValueType: true },
      8: { WFSpeakTextRate: true },
    },
  },
  {
    n: 9,
    name: 'Word score',
    query: 'Count the words of my text, multiply by 5, round to hundreds and copy it locally.',
    category: 'Development & API',
    actions: [
      act('gettext', { WFTextActionText: 'one two three', UUID: uuid(901) }),
      act('text.split', { text: att(out(901, 'Text')), WFTextSeparator: 'Spaces', UUID: uuid(902) }),
      act('count', { WFCountType: 'Items', Input: att(out(902, 'Split Text')), UUID: uuid(903) }),
      act('math', {
        WFInput: att(out(903, 'Count')),
        WFMathOperation: '×',
        WFMathOperand: 5,
        UUID: uuid(904),
      }),
      act('round', {
        WFInput: att(out(904, 'Calculation Result')),
        WFRoundTo: 'Ones Place',
        TenToThePowerOf: 2,
        UUID: uuid(905),
      }),
      act('setclipboard', { WFInput: sys('Input'), WFLocalOnly: true }),
      act('showresult', { Text: 'done' }),
    ],
    distractors: [
      'number',
      'calculateexpression',
      'text.combine',
      'list',
      'getitemfromlist',
      'hash',
      'base64encode',
      'urlencode',
      'openurl',
      'dictionary',
      'nothing',
      'delay',
      'vibrate',
      'speaktext',
    ],
    predictions: {
      1: said('splittext', { text: 'one two three' }),
      2: unparsed('I would count the items.'),
      3: said('math', {
        WFInput: { Value: { Type: 'ActionOutput', OutputUUID: uuid(999), OutputName: 'Count' } },
        WFMathOperation: '×',
        WFMathOperand: '5',
      }),
      4: said('round', {
        WFInput: { Value: { Type: 'ActionOutput', OutputName: 'Rounded Number' } },
        TenToThePowerOf: '2.0',
      }),
      5: said('setclipboard', { WFInput: { Value: { Type: 'ExtensionInput' } }, WFLocalOnly: 1 }),
      6: said('openurl', { WFInput: 'done' }),
    },
    essential: {
      1: { WFTextSeparator: true },
      2: { WFCountType: true },
      3: { WFMathOperation: true, WFMathOperand: true },
      4: { TenToThePowerOf: true, WFRoundTo: false },
      5: { WFLocalOnly: true },
    },
  },
  {
    n: 10,
    name: 'Morning routine',
    query: 'Run my morning routine.',
    category: 'Home & Smart Devices',
    actions: [
      act('comment', { WFCommentActionText: 'morning' }),
      ...[
        'getbatterylevel',
        'getdevicedetails',
        'getclipboard',
        'date',
        'nothing',
        'showresult',
        'vibrate',
        'delay',
        'setbrightness',
        'lowpowermode.set',
        'flashlight',
        'number',
        'list',
        'dictionary',
        'count',
        'openapp',
        'previewdocument',
        'base64encode',
        'urlencode',
        'detect.link',
        'getwifi',
      ].map((id) => act(id)),
    ],
    distractors: [],
    predictions: {},
    essential: undefined,
  },
  {
    n: 11,
    name: 'Date in a week',
    query: 'Tell me the long form of today and the date a week from now.',
    category: 'Lifestyle & Social',
    actions: [
      act('date', { WFDateActionMode: 'Current Date', UUID: uuid(1101) }),
      act('format.date', { WFDate: att(out(1101, 'Date')), WFDateFormatStyle: 'Long', UUID: uuid(1102) }),
      act('adjustdate', { WFDate: sys('CurrentDate'), WFAdjustOperation: 'Add', UUID: uuid(1103) }),
      act('showresult', { Text: tokens('\uFFFC and \uFFFC', [out(1102, 'Formatted Date'), out(1103, 'Adjusted Date')]) }),
      act('speaktext', { WFText: att(out(1102, 'Formatted Date')), WFSpeakTextRate: f('0.5') }),
      act('notification', { WFNotificationActionBody: att(out(1103, 'Adjusted Date')), WFNotificationActionSound: false }),
      act('setclipboard', { WFInput: att(out(1103, 'Adjusted Date')) }),
    ],
    kept: 3,
    distractors: [
      'getclipboard',
      'getbatterylevel',
      'openurl',
      'url',
      'vibrate',
      'delay',
      'nothing',
      'getwifi',
      'list',
      'dictionary',
      'number',
      'count',
      'hash',
    ],
    predictions: {
      0: said('date', { WFDateActionMode: 'Current Date' }),
      1: said('format.date', {
        WFDate: { Value: { Type: 'ActionOutput', OutputUUID: uuid(1101), OutputName: 'Date' } },
        WFDateFormatStyle: 'long',
      }),
      2: said('adjustdate', { WFDate: { Value: { Type: 'CurrentDate' } }, WFAdjustOperation: 'Add' }),
    },
    essential: {
      0: { WFDateActionMode: true },
      1: { WFDateFormatStyle: true },
      2: { WFAdjustOperation: true },
      4: { WFSpeakTextRate: true },
    },
  },
  {
    n: 12,
    name: 'Save power',
    query: 'Turn on low power mode and dim the screen to 30%.',
    category: 'Accessibility & Utilities',
    actions: [act('lowpowermode.set', { OnValue: true }), act('setbrightness', { WFBrightness: f('0.3') })],
    distractors: ['flashlight', 'dnd.set', 'wifi.set', 'bluetooth.set', 'setvolume', 'vibrate', 'nothing'],
    predictions: { 0: said('lowpowermode.set', { OnValue: false }), 1: said('setbrightness', { WFBrightness: f('0.3') }) },
  },
];

const FILTER_OR_IGNORE = new Set(
  [
    'comment',
    'alert',
    'conditional',
    'choosefrommenu',
    'repeat.each',
    'repeat.count',
    'getvariable',
    'setvariable',
    'appendvariable',
    'runworkflow',
    'gettext',
    'ask',
  ].map((s) => P + s),
);

function resultRecord(s: Authored) {
  const aseqs = s.actions.slice(0, s.kept ?? s.actions.length);
  const gold = [
    ...new Set(aseqs.map((a) => a.WFWorkflowActionIdentifier).filter((id) => !FILTER_OR_IGNORE.has(id))),
  ];
  // the full shortcut's APIs (generation may have stopped early)
  const allGold = [
    ...new Set(s.actions.map((a) => a.WFWorkflowActionIdentifier).filter((id) => !FILTER_OR_IGNORE.has(id))),
  ];
  const apiNames = [...allGold, ...s.distractors.map((d) => P + d)];
  const bseqs = aseqs.map((a, i) =>
    FILTER_OR_IGNORE.has(a.WFWorkflowActionIdentifier)
      ? { state: 'copy_from_true', aseq: a }
      : (s.predictions[i] ?? said(a.WFWorkflowActionIdentifier, {})),
  );
  void gold;
  return {
    URL: url(s.n),
    query: s.query,
    api_names: apiNames,
    api_descs: Object.fromEntries([...apiNames].sort().map((id) => [id, `${id}(...)\n`])),
    aseqs,
    bseqs,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_cost: 0,
  };
}

// S10: the last action is answered with another listed gold API (index 0 of api_names)
S[9]!.predictions[21] = said('getbatterylevel', {});

const goldFile = S.map((s) => ({
  URL: url(s.n),
  shortcut: {
    WFWorkflowActions: s.actions,
    WFWorkflowClientVersion: '2302.0.4',
    WFWorkflowMinimumClientVersion: 900,
    WFWorkflowTypes: [],
    WFWorkflowInputContentItemClasses: ['WFStringContentItem'],
  },
  records: { recordName: `F1C0FFEE-${s.n}`, fields: { name: { value: s.name } } },
  Source: ['authored'],
  MemberOnly: [false],
  NameINStore: [s.name],
  CategoryInStore: [s.category],
  DescriptionInStore: [s.query],
  Downloads: [],
  Favorites: [],
  Reads: [],
  Rates: [],
}));
// a record the loaders must skip (shortcut null), as in the upstream file
goldFile.push({ ...goldFile[0]!, URL: url(99), shortcut: null as never });

const queries = Object.fromEntries(
  S.map((s) => [
    url(s.n),
    {
      GeneratedQuery: { shortcut_name: s.name, shortcut_description: s.query, query: s.query },
      RecordName: `F1C0FFEE-${s.n}`,
      DescriptionInStore: null,
      DescriptionoftheShortcutWorkflow: s.query,
      Comments: null,
      APIDescriptionList: [],
    },
  ]),
);

const check = Object.fromEntries(
  S.filter((s) => s.essential).map((s) => {
    const necessary: Record<string, Record<string, Plain>> = {};
    const significant: Record<string, Record<string, Plain>> = {};
    for (const [pos, names] of Object.entries(s.essential!)) {
      const params = s.actions[Number(pos)]!.WFWorkflowActionParameters as Record<string, Plain>;
      necessary[pos] = Object.fromEntries(Object.keys(names).map((n) => [n, params[n]!]));
      significant[pos] = Object.fromEntries(
        Object.entries(names).map(([n, e]) => [
          n,
          { [n]: e ? 'Essential parameter' : 'Not essential parameter', reason: 'authored' },
        ]),
      );
    }
    return [url(s.n), { query: s.query, api_desc: '', necessary_paras: necessary, significant_paras: significant }];
  }),
);

const categories = Object.fromEntries(
  S.map((s) => [url(s.n), { category: s.category, english_name: s.name, english_functionality: s.query }]),
);

const dir = join(import.meta.dirname, 'authored');
mkdirSync(dir, { recursive: true });
const write = (name: string, v: Plain) => writeFileSync(join(dir, name), `${dumpsPythonJson(toJson(v), 2)}\n`);
write('1_final_detailed_records_filter_apis_leq_30.json', goldFile as unknown as Plain);
write('generated_success_queries.json', queries as unknown as Plain);
write('json-gpt-3.5-turbo_check_intersection_of_query_and_para_necessary.json', check as unknown as Plain);
write('generated_success_categories.json', categories as unknown as Plain);
writeFileSync(
  join(dir, 'results.jsonl'),
  S.map((s) => `${dumpsPythonJson(toJson(resultRecord(s) as unknown as Plain))}\n`).join(''),
);
