import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexCatalog, loadCatalog } from '../../../catalog/index.js';
import { appRegistry, dispatchCall } from '../../../exec/index.js';
import { SANDBOX_DEBIAN_PACKAGES } from '../../../tools/sandbox/config.js';
import { PythonSandbox } from '../../../tools/sandbox/sandbox.js';
import { toolHandler } from '../../../tools/tool.js';
import { registerBuiltinPlugins } from '../../builtin.js';
import { plotTool } from './plot.js';
import { solutionProgram, stripMarkdownCode } from './python-solution.js';
import { solverTool } from './solver.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

describe('stripMarkdownCode (as AgentLego splits the command)', () => {
  it('takes the code between ```python and the next fence', () => {
    expect(stripMarkdownCode('Here:\n```python\ndef solution():\n    return 1\n```\ntrailing')).toBe(
      '\ndef solution():\n    return 1\n',
    );
  });
  it('takes the code between the first two fences when there is no language', () => {
    expect(stripMarkdownCode('```\nx = 1\n```\n```python\ny\n```')).toBe('\ny\n');
    expect(stripMarkdownCode('```\nx = 1\n```')).toBe('\nx = 1\n');
  });
  it('keeps a command without fences as it is, and an unclosed fence to the end', () => {
    expect(stripMarkdownCode('def solution():\n    return 2')).toBe('def solution():\n    return 2');
    expect(stripMarkdownCode('```python\ndef solution(): return 3')).toBe('\ndef solution(): return 3');
  });
});

describe('solutionProgram', () => {
  it('runs the tool header first and evaluates solution() in the same globals', () => {
    expect(solutionProgram('text')).toContain('exec("from sympy import symbols, Eq, solve", _globals)');
    expect(solutionProgram('figure')).toContain('exec("import matplotlib.pyplot as plt", _globals)');
    expect(solutionProgram('text')).toContain("_value = eval('solution()', _globals)");
    expect(solutionProgram('text')).toContain('_report(text=str(_value))');
  });
});

const sandbox = new PythonSandbox();
const missing = sandbox.unavailable(['sympy', 'matplotlib']);
const outputDir = mkdtempSync(join(tmpdir(), 'apiary-gta-python-'));
chmodSync(outputDir, 0o755);
afterAll(() => rmSync(outputDir, { recursive: true, force: true }));

/** The description's own example, as GTA's model would send it. */
const example = (description: string) => description.slice(description.indexOf('```python'));

describe.skipIf(missing !== undefined)(
  missing
    ? `Solver and Plot through dispatchCall (skipped: ${missing})`
    : 'Solver and Plot through dispatchCall',
  () => {
    const catalog = loadCatalog('gta');
    const index = indexCatalog(catalog);
    const apps = appRegistry([
      toolHandler(solverTool({ sandbox }), { outputDir, readable: [] }),
      toolHandler(plotTool({ sandbox }), { outputDir, readable: [] }),
    ]);
    const call = (tool: string, command: unknown) =>
      dispatchCall({ app: tool, api: tool, args: { command } }, { catalog: index, apps });
    const description = (tool: string) => catalog.apis.find((a) => a.name === tool)!.description;

    it("Solver runs the description's example and returns str(solution()) as text", async () => {
      const outcome = await call('Solver', example(description('Solver')));
      expect(outcome).toMatchObject({
        ok: true,
        content: [
          {
            type: 'text',
            text: '[{x: -4, y: -2}, {x: 4, y: 2}, {x: -3*sqrt(2), y: -sqrt(2)}, {x: 3*sqrt(2), y: sqrt(2)}]',
          },
        ],
      });
    });

    it('Solver ignores what the code prints and stringifies any returned value', async () => {
      const outcome = await call(
        'Solver',
        '```python\ndef solution():\n    print("noise")\n    x = symbols("x")\n    return solve(Eq(2*x + 1, 7), x)\n```',
      );
      expect(outcome).toMatchObject({ ok: true, content: [{ type: 'text', text: '[3]' }] });
    });

    it('errors of the code come back as text the model can read', async () => {
      const cases: Array<[string, string]> = [
        ['def solution():\n    return y', "NameError: name 'y' is not defined"],
        ['x = 1', "NameError: name 'solution' is not defined"],
        ['def solution(:\n    pass', 'SyntaxError: invalid syntax (command.py, line 1)'],
        ['def solution():\n    return 1/0', 'ZeroDivisionError: division by zero'],
      ];
      for (const [command, message] of cases) {
        const outcome = await call('Solver', command);
        expect(outcome).toMatchObject({ ok: false, error: { code: 'TOOL_FAILED', message } });
      }
    });

    it("Plot saves the description's example figure as a PNG image part in the output folder", async () => {
      const first = await call('Plot', example(description('Plot')));
      const second = await call('Plot', example(description('Plot')));
      expect(first).toMatchObject({
        ok: true,
        content: [{ type: 'image', path: join(outputDir, 'plot-1.png'), mediaType: 'image/png' }],
      });
      expect(second).toMatchObject({
        ok: true,
        content: [{ type: 'image', path: join(outputDir, 'plot-2.png') }],
      });
      const png = readFileSync(join(outputDir, 'plot-1.png'));
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      // figsize (8, 6) at matplotlib's default 100 dpi: 800 × 600 pixels (IHDR width and height).
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([800, 600]);
    });

    it('Plot refuses a solution() that returns something other than a figure', async () => {
      const outcome = await call('Plot', 'def solution():\n    return 42');
      expect(outcome).toMatchObject({
        ok: false,
        error: {
          code: 'TOOL_FAILED',
          message: 'TypeError: The `solution` function must return the matplotlib figure.',
        },
      });
    });

    it('a command that is not a string is refused before anything runs', async () => {
      expect(await call('Solver', 42)).toMatchObject({
        ok: false,
        error: { code: 'TOOL_FAILED', message: 'Solver: argument "command" must be a string of Python code' },
      });
    });
  },
);

describe('Solver and Plot without the sandbox packages', () => {
  it('say which Debian packages to install', () => {
    const absent = new PythonSandbox({ bwrapPath: join(outputDir, 'no-bwrap') });
    expect(solverTool({ sandbox: absent }).unavailable?.()).toBe(
      `bubblewrap (bwrap) is not installed or not on PATH: install the Debian packages: apt-get install ${SANDBOX_DEBIAN_PACKAGES}`,
    );
    expect(plotTool({ sandbox: absent }).unavailable?.()).toContain('python3-matplotlib');
  });
});
