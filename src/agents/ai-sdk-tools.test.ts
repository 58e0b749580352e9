import { describe, expect, it } from 'vitest';
import { type Api, assignToolNames, toOpenAiTools } from '../catalog/index.js';
import { toAiSdkTools } from './ai-sdk-tools.js';
import { catalogToolset } from './runtime/catalog-toolset.js';

const api = (app: string, name: string, description = `${name} of ${app}`): Api => ({
  id: `${app}/${name}`,
  app,
  name,
  description,
  transactional: false,
  parameters: [],
  outputs: [],
});
// Two ToolBench APIs whose names are all non-ASCII: both used to become `Other_meta_v1_____`.
const apis = [api('Other/meta_v1', '账户查询'), api('Other/meta_v1', '付费更新'), api('Other/meta_v1', 'x')];

describe('AI SDK tools and agent tools share the export names', () => {
  it('one tool per API, never a silent drop (was 2 tools for 3 APIs)', () => {
    const tools = toAiSdkTools(apis);
    expect(Object.keys(tools)).toEqual([
      'Other_meta_v1______dbc2c05d',
      'Other_meta_v1______a8e55748',
      'Other_meta_v1_x',
    ]);
    const { apiOf } = assignToolNames(apis);
    expect(Object.keys(tools).map((n) => apiOf.get(n)!.name)).toEqual(['账户查询', '付费更新', 'x']);
  });

  it('the agent runtime offers the same names and short descriptions as the OpenAI export', () => {
    const long = api('A', 'long', 'word '.repeat(400));
    const all = [...apis, long];
    const toolset = catalogToolset(all, {} as Parameters<typeof catalogToolset>[1]);
    const exported = toOpenAiTools(all);
    expect(toolset.tools.map((t) => t.name)).toEqual(exported.map((d) => d.function.name));
    expect(toolset.tools.map((t) => t.description)).toEqual(exported.map((d) => d.function.description));
    expect(toolset.tools.map((t) => [t.app, t.api])).toEqual(all.map((a) => [a.app, a.name]));
    expect(toolset.tools[3]!.description).toHaveLength(1021);
    expect(toAiSdkTools(all).A_long!.description).toHaveLength(1021);
  });
});
