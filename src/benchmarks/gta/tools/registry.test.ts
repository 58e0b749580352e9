import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolRecording } from '../../../tools/record/index.js';
import { GTA_TOOL_NAMES, gtaTool, gtaToolHandlers, gtaTools, toolStatus } from './registry.js';
import { solverTool } from './solver.js';

const dir = mkdtempSync(join(tmpdir(), 'apiary-gta-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('gtaTools', () => {
  it('lists all 14 GTA tools; with no endpoint configured the local ones are ready', () => {
    const tools = gtaTools({ env: {} });
    expect([...tools.keys()]).toEqual(GTA_TOOL_NAMES);
    expect(GTA_TOOL_NAMES).toHaveLength(14);
    const ready = [...tools.values()].filter((t) => toolStatus(t).ready).map((t) => t.name);
    // Solver and Plot need bubblewrap and Debian's python3-sympy/matplotlib (CI installs them)
    const python = solverTool().unavailable?.() === undefined ? ['Plot', 'Solver'] : [];
    expect(ready.sort()).toEqual(['AddText', 'Calculator', 'DrawBox', 'OCR', ...python].sort());
    expect(toolStatus(tools.get('MathOCR')!)).toEqual({
      ready: false,
      reason: expect.stringContaining('APIARY_VISION_BASE_URL'),
    });
  });

  it('picks tools by name; a name that is not a GTA tool is NOT_FOUND', () => {
    expect([...gtaTools({}, ['Calculator', 'OCR']).keys()]).toEqual(['Calculator', 'OCR']);
    expect(() => gtaTools({}, ['Calculater'])).toThrow(/^unknown GTA tool "Calculater" \(available: OCR, /);
    expect(() => gtaTool(gtaTools({}, ['OCR']), 'Calculator')).toThrow(
      'unknown tool in this set "Calculator" (available: OCR)',
    );
  });

  it('builds handlers under each tool identity; an unbuilt tool says it is unavailable', async () => {
    const handlers = gtaToolHandlers(gtaTools({ env: {} }, ['Calculator', 'ImageDescription']), {
      outputDir: dir,
      readable: [],
    });
    expect(handlers.map((h) => [h.appId, h.owner])).toEqual([
      ['Calculator', 'tool:Calculator'],
      ['ImageDescription', 'tool:ImageDescription'],
    ]);
    const [calc, solver] = handlers as [(typeof handlers)[0], (typeof handlers)[0]];
    expect(await calc.call('Calculator', { expression: '3.5*60' }, { caller: 'tool:Calculator' })).toEqual({
      content: [{ type: 'text', text: '210.0' }],
    });
    await expect(
      solver.call('ImageDescription', { image: 'x.png' }, { caller: 'tool:ImageDescription' }),
    ).rejects.toThrow(/^ImageDescription is not available: .*APIARY_VISION_BASE_URL/);
  });

  it('routes calls through a recording when one is given', async () => {
    const recording = new ToolRecording(join(dir, 'rec'), 'record-missing');
    const [calc] = gtaToolHandlers(gtaTools({}, ['Calculator']), { outputDir: dir, recording, readable: [] });
    await calc?.call('Calculator', { expression: '2**10' }, { caller: 'tool:Calculator' });
    await calc?.call('Calculator', { expression: '2**10' }, { caller: 'tool:Calculator' });
    expect(recording.stats).toEqual({ hits: 1, misses: 1, runs: 1, recorded: 1 });
  });
});
