import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Jimp, loadFont, measureText } from 'jimp';
import { SANS_32_BLACK } from 'jimp/fonts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatOcrLines, ocrTool } from './ocr.js';

const dir = mkdtempSync(join(tmpdir(), 'apiary-ocr-'));
const tool = ocrTool();
afterAll(async () => {
  await tool.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const menu = join(dir, 'menu.png');
// Where the text is drawn (jimp's 32 px font: glyphs inside the line box, about 36 px tall).
const LINES = [
  { text: 'Tea 4.50', x: 20, y: 10 },
  { text: 'Cake 8', x: 20, y: 60 },
];
let widths: number[] = [];

beforeAll(async () => {
  const font = await loadFont(SANS_32_BLACK);
  const img = new Jimp({ width: 400, height: 120, color: 0xffffffff });
  for (const l of LINES) img.print({ font, x: l.x, y: l.y, text: l.text });
  widths = LINES.map((l) => measureText(font, l.text));
  await img.write(menu as `${string}.png`);
});

describe('formatOcrLines', () => {
  it("renders AgentLego's `(x1, y1, x2, y2) text` lines, trimming text and dropping empty lines", () => {
    expect(
      formatOcrLines([
        { bbox: { x0: 2, y0: 1, x1: 14, y1: 4 }, text: 'Tea 4\n' },
        { bbox: { x0: 0, y0: 0, x1: 1, y1: 1 }, text: ' \n' },
        { bbox: { x0: 2, y0: 7, x1: 14, y1: 10 }, text: 'Cake  8\n' },
      ]),
    ).toBe('(2, 1, 14, 4) Tea 4\n(2, 7, 14, 10) Cake 8');
    expect(formatOcrLines([])).toBe('');
  });
});

describe('OCR (tesseract.js, bundled English data)', () => {
  it('reads each rendered line exactly, with a box around the drawn text', async () => {
    const cwdFiles = existsSync('eng.traineddata');
    const [part] = await tool.run({ image: menu }, { outputDir: dir, readable: [dir] });
    expect(part?.type).toBe('text');
    const lines = (part as { text: string }).text.split('\n');
    expect(lines).toHaveLength(2);
    lines.forEach((line, i) => {
      const m = /^\((\d+), (\d+), (\d+), (\d+)\) (.*)$/.exec(line);
      expect(m).not.toBeNull();
      const [x1, y1, x2, y2] = (m as RegExpExecArray).slice(1, 5).map(Number) as [
        number,
        number,
        number,
        number,
      ];
      const drawn = LINES[i] as (typeof LINES)[number];
      expect(m?.[5]).toBe(drawn.text);
      // The box lies within the drawn line's box (x, y) … (x + width, y + 36), give or take 3 px.
      expect(x1).toBeGreaterThanOrEqual(drawn.x - 3);
      expect(y1).toBeGreaterThanOrEqual(drawn.y - 3);
      expect(x2).toBeLessThanOrEqual(drawn.x + (widths[i] as number) + 3);
      expect(y2).toBeLessThanOrEqual(drawn.y + 36 + 3);
      expect(x2 - x1).toBeGreaterThan((widths[i] as number) / 2);
      expect(y2 - y1).toBeGreaterThan(15);
    });
    // The worker is kept: a second call gives the same text.
    expect(await tool.run({ image: menu }, { outputDir: dir, readable: [dir] })).toEqual([part]);
    // Language data is read in place, never cached next to the process.
    expect(existsSync('eng.traineddata')).toBe(cwdFiles);
  });

  it('says what to install when the language data is missing, and never downloads it', async () => {
    const empty = join(dir, 'no-lang');
    mkdirSync(empty);
    const broken = ocrTool({ langPath: empty });
    const message = `no eng language data at ${join(empty, 'eng.traineddata.gz')} (install @tesseract.js-data/eng or set the OCR langPath)`;
    expect(broken.unavailable?.()).toBe(message);
    expect(tool.unavailable?.()).toBeUndefined();
    await expect(broken.run({ image: menu }, { outputDir: dir, readable: [dir] })).rejects.toThrow(
      `OCR: ${message}`,
    );
    await broken.dispose();
  });

  it('reports an unreadable image as a tool error and keeps working', async () => {
    const bad = join(dir, 'bad.png');
    writeFileSync(bad, 'not a png');
    await expect(tool.run({ image: bad }, { outputDir: dir, readable: [dir] })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
    });
    const [part] = await tool.run({ image: menu }, { outputDir: dir, readable: [dir] });
    expect((part as { text: string }).text).toMatch(/\) Tea 4\.50\n.*\) Cake 8$/);
  });

  it("leptonica's own decode errors never reach stderr: only our coded error says it", async () => {
    const truncated = join(dir, 'truncated.png');
    writeFileSync(truncated, readFileSync(menu).subarray(0, 40)); // a valid header, no pixels
    // an ICO header image-size reads, in a format leptonica cannot decode
    const ico = Buffer.alloc(62);
    ico.writeUInt16LE(1, 2);
    ico.writeUInt16LE(1, 4);
    ico[6] = 16;
    ico[7] = 16;
    ico.writeUInt32LE(40, 14);
    ico.writeUInt32LE(22, 18);
    const icoFile = join(dir, 'icon.ico');
    writeFileSync(icoFile, ico);
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const own = ocrTool();
    try {
      for (const file of [truncated, icoFile])
        await expect(own.run({ image: file }, { outputDir: dir, readable: [dir] })).rejects.toMatchObject({
          code: 'TOOL_FAILED',
          message: `OCR: cannot recognise ${file}: Error: Error attempting to read image.`,
        });
      // the worker's stderr reaches the process asynchronously: give it time to arrive
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      spy.mockRestore();
      await own.dispose();
    }
    expect(written.filter((w) => /pixReadStream|libpng/.test(w))).toEqual([]);
  });

  it('reports a missing image as a tool error', async () => {
    await expect(
      tool.run({ image: join(dir, 'none.png') }, { outputDir: dir, readable: [dir] }),
    ).rejects.toThrow(`OCR: image file not found: ${join(dir, 'none.png')}`);
  });

  it('refuses an image outside the granted folders without reading it, existing or not', async () => {
    for (const image of ['/etc/passwd', '/etc/no-such.png'])
      await expect(tool.run({ image }, { outputDir: join(dir, 'out'), readable: [] })).rejects.toMatchObject({
        code: 'PERMISSION_DENIED',
        message: `OCR: image "${image}" is outside the folders this tool may read (grant more with --allow-dir)`,
      });
  });
});
