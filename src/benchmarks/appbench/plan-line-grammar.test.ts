import { MockLanguageModelV3 } from 'ai/test';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractPlanLines } from '../../agents/extract-plan-lines.js';
import { flatAgent, hierarchicalAgent } from '../../agents/index.js';
import { apiInputJsonSchema, type Catalog, CatalogSchema } from '../../catalog/index.js';
import { type GrammarJudge, loadGrammarJudge } from '../../models/grammar/__fixtures__/llama-judge.js';
import {
  appSelectionConstraint,
  appSelectionGrammar,
  planLineConstraint,
  planLineGrammar,
} from './plan-line-grammar.js';
import { extractNameParams, splitOfficialReply } from './score-official-parse.js';

const str = { kind: 'primitive', name: 'string' } as const;
/** Two apps; parameters with an enum, a pattern, an integer range, a date, a boolean and optional ones. */
const catalog: Catalog = CatalogSchema.parse({
  name: 'grammar-test',
  apps: [
    { id: 'Rents', name: 'Rents', description: 'cars', owner: 'sim' },
    { id: 'Weather', name: 'Weather', description: 'forecasts', owner: 'sim' },
  ],
  apis: [
    {
      id: 'Rents.getcars',
      app: 'Rents',
      name: 'getcars',
      description: 'find cars',
      transactional: false,
      parameters: [
        {
          name: 'city',
          required: true,
          type: { kind: 'primitive', name: 'string', constraints: { pattern: '^[A-Z][a-z]{2,7}$' } },
        },
        { name: 'start_date', required: true, type: { kind: 'primitive', name: 'date' } },
        {
          name: 'days',
          required: false,
          type: { kind: 'primitive', name: 'integer', constraints: { minimum: 1, maximum: 14 } },
        },
        {
          name: 'car_type',
          required: false,
          type: { kind: 'enum', values: [{ value: 'Sedan' }, { value: 'SUV' }] },
        },
        { name: 'insurance', required: false, type: { kind: 'primitive', name: 'boolean' } },
      ],
      outputs: [
        { name: 'car_name', type: str },
        { name: 'pickup_location', type: str },
      ],
    },
    {
      id: 'Weather.getweather',
      app: 'Weather',
      name: 'getweather',
      description: 'weather',
      transactional: false,
      parameters: [
        {
          name: 'city',
          required: true,
          type: { kind: 'primitive', name: 'string', constraints: { maxLength: 6 } },
        },
        { name: 'date', required: false, type: { kind: 'primitive', name: 'date' } },
      ],
      outputs: [{ name: 'temperature', type: str }],
    },
  ],
});

let judge: GrammarJudge;
beforeAll(async () => {
  judge = await loadGrammarJudge();
}, 30_000);
afterAll(async () => {
  await judge?.dispose();
});

/** Why a plan line does not fit the catalog ('' when it does), read with the official parsers. */
function lineProblems(line: string, ajv: Ajv): string {
  const { apps, apis } = splitOfficialReply(line);
  const call = extractNameParams(apis[0] ?? '');
  if (apps.length !== 1 || !call) return 'not a call line';
  const api = catalog.apis.find((a) => a.app === apps[0] && a.name === call.name);
  if (!api) return `unknown API ${apps[0]}.${call.name}`;
  if (call.returns.join(',') !== api.outputs.map((o) => o.name).join(',')) return 'wrong returned arguments';
  const schema = apiInputJsonSchema(api) as { properties: Record<string, Record<string, unknown>> };
  const outputs = new Set(catalog.apis.flatMap((a) => a.outputs.map((o) => o.name)));
  for (const p of api.parameters) if (p.required && !call.args.has(`#${p.name}`)) return `missing ${p.name}`;
  for (const [key, raw] of call.args) {
    const name = key.slice(1);
    const prop = schema.properties[name];
    if (!prop) return `unknown argument ${name}`;
    if (!raw.startsWith("'")) {
      if (!outputs.has(raw)) return `${name}: ${raw} is neither a literal nor a returned argument`;
      continue;
    }
    const text = raw.slice(1, -1);
    const value = prop.type === 'integer' ? Number(text) : prop.type === 'boolean' ? text : text;
    const fits = prop.type === 'boolean' ? text === 'True' || text === 'False' : ajv.validate(prop, value);
    if (!fits) return `${name}: ${raw} ${ajv.errorsText()}`;
  }
  return '';
}

describe('AppBench plan-line grammar', () => {
  it('100 seeded generations of the tiny model: every line is a plan line of an offered API whose arguments validate', async () => {
    const grammar = planLineGrammar(catalog, undefined, { maxLines: 3, maxStringLength: 10 });
    const outputs = await judge.generate(grammar, { count: 100, seed: 1, maxTokens: 400, temperature: 0.9 });
    const ajv = new Ajv({ strict: false });
    ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
    const failures: string[] = [];
    let lines = 0;
    for (const text of outputs) {
      // the protocol's own parser keeps every line as written
      if (extractPlanLines(text) !== text) failures.push(`cleaned differently: ${text}`);
      for (const line of text.split('\n')) {
        lines++;
        const problem = lineProblems(line, ajv);
        if (problem) failures.push(`${problem}: ${line}`);
      }
    }
    expect(failures).toEqual([]);
    expect(lines).toBeGreaterThanOrEqual(100);
  }, 60_000);

  it('accepts a gold-shaped plan, refuses unknown APIs, bad literals, missing required and misordered arguments', async () => {
    const grammar = planLineGrammar(catalog);
    const texts = {
      gold: "Rents: [car_name, pickup_location = Rents_getcars(#city='Denver', #start_date='2019-03-08', #days='3', #insurance='False')]\nWeather: [temperature = Weather_getweather(#city=pickup_location)]",
      unknownApi:
        "Rents: [car_name, pickup_location = Rents_reservecar(#city='Denver', #start_date='2019-03-08')]",
      badPattern:
        "Rents: [car_name, pickup_location = Rents_getcars(#city='denver', #start_date='2019-03-08')]",
      outOfRange:
        "Rents: [car_name, pickup_location = Rents_getcars(#city='Denver', #start_date='2019-03-08', #days='15')]",
      badEnum:
        "Rents: [car_name, pickup_location = Rents_getcars(#city='Denver', #start_date='2019-03-08', #car_type='Van')]",
      missingRequired: "Rents: [car_name, pickup_location = Rents_getcars(#city='Denver')]",
      misordered:
        "Rents: [car_name, pickup_location = Rents_getcars(#start_date='2019-03-08', #city='Denver')]",
      tooLong: "Weather: [temperature = Weather_getweather(#city='Sacramento')]",
      unknownDependency: 'Weather: [temperature = Weather_getweather(#city=somewhere)]',
    };
    const verdicts: Record<string, boolean> = {};
    for (const [k, t] of Object.entries(texts)) verdicts[k] = await judge.accepts(grammar, t);
    expect(verdicts).toEqual({
      gold: true,
      unknownApi: false,
      badPattern: false,
      outOfRange: false,
      badEnum: false,
      missingRequired: false,
      misordered: false,
      tooLong: false,
      unknownDependency: false,
    });
    // hierarchical prompting offers the selected Apps only
    expect(await judge.accepts(planLineGrammar(catalog, ['Weather']), texts.gold)).toBe(false);
  });

  it('the flat agent sends the constraint with its plan turn (memoised per catalog)', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'text', text: "Weather: [temperature = Weather_getweather(#city='Oslo')]" }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      }),
    });
    const agent = flatAgent({ model, planConstraint: planLineConstraint });
    const out = await agent.plan({ instruction: 'weather in Oslo', currentDate: '2019-03-01' }, { catalog });
    expect(out.reply).toBe("Weather: [temperature = Weather_getweather(#city='Oslo')]");
    expect(planLineConstraint(catalog)).toBe(planLineConstraint(catalog));
    expect(model.doGenerateCalls.map((c) => c.providerOptions)).toEqual([
      {
        apiaryGrammar: {
          grammar: planLineConstraint(catalog).grammar,
          constraintName: 'appbench-plan-lines',
        },
      },
    ]);
    await flatAgent({ model }).plan(
      { instruction: 'weather in Oslo', currentDate: '2019-03-01' },
      { catalog },
    );
    expect(model.doGenerateCalls[1]!.providerOptions).toBeUndefined();
  });

  it('hierarchical prompting: the App selection is a list of catalog Apps, then the plan covers the selected ones', async () => {
    const grammar = appSelectionGrammar(catalog);
    const verdicts: Record<string, boolean> = {};
    for (const t of ['[Weather]', '[Rents, Weather]', '[]', '[Cars]', 'Weather', '[Rents,Weather]'])
      verdicts[t] = await judge.accepts(grammar, t);
    expect(verdicts).toEqual({
      '[Weather]': true,
      '[Rents, Weather]': true,
      '[]': false,
      '[Cars]': false,
      Weather: false,
      '[Rents,Weather]': false,
    });
    const replies = ['[Weather]', "Weather: [temperature = Weather_getweather(#city='Oslo')]"];
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'text', text: replies.shift()! }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      }),
    });
    const agent = hierarchicalAgent({ model, planConstraint: planLineConstraint, appSelectionConstraint });
    const out = await agent.plan({ instruction: 'weather in Oslo', currentDate: '2019-03-01' }, { catalog });
    expect(out.selectedApps).toEqual(['Weather']);
    expect(
      model.doGenerateCalls.map(
        (c) => (c.providerOptions?.apiaryGrammar as { constraintName?: string } | undefined)?.constraintName,
      ),
    ).toEqual(['appbench-app-selection', 'appbench-plan-lines']);
    expect(model.doGenerateCalls[1]!.providerOptions?.apiaryGrammar).toEqual({
      grammar: planLineGrammar(catalog, ['Weather'], { maxLines: 8, maxStringLength: 64 }),
      constraintName: 'appbench-plan-lines',
    });
  });
});
