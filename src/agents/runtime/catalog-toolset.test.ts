import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';
import { indexCatalog, loadCatalog } from '../../catalog/index.js';
import { apiAsTool } from './catalog-toolset.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

// Issue 11 item 8: ShortcutsBench's typed parameters reach the model as tool schemas.
describe('ShortcutsBench APIs as agent tools', () => {
  const catalog = loadCatalog('shortcuts', { dataDir: join(import.meta.dirname, '../../../data') });
  const index = indexCatalog(catalog);

  it('offers an enum parameter with its values and default, primitives with their JSON types', () => {
    const tool = apiAsTool(index.apiById('is.workflow.actions.resizewindow')!);
    expect(tool.name).toBe('is_workflow_actions_resizewindow');
    const props = (tool.inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(props.WFConfiguration!.enum).toHaveLength(10);
    expect(props.WFConfiguration!.default).toBe('Fit Screen');
    expect(props.WFWidth!.type).toBe('integer');
    expect(props.WFBringToFront!.type).toBe('boolean');
    expect(tool.parameters.find((p) => p.name === 'WFConfiguration')?.type).toBe('enum');
  });

  it('an entity-typed parameter takes a literal or a reference object (an earlier output)', () => {
    const tool = apiAsTool(index.apiById('is.workflow.actions.resizewindow')!);
    const props = (tool.inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(props.WFWindow!.type).toEqual(['string', 'object']);
    expect(props.WFWindow!.title).toBe('WFVariablePickerParameter');
    expect(tool.parameters.find((p) => p.name === 'WFWindow')?.type).toBe('entity');
  });

  it('every one of the 1,414 APIs becomes a tool with a unique model-safe name', () => {
    const names = catalog.apis.map((api) => apiAsTool(api).name);
    expect(names).toHaveLength(1414);
    expect(new Set(names).size).toBe(1414);
    expect(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
  });
});
