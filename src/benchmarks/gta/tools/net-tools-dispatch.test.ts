import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Jimp } from 'jimp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexCatalog, loadCatalog } from '../../../catalog/index.js';
import { appRegistry, dispatchCall } from '../../../exec/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../../test/index.js';
import { toolHandler } from '../../../tools/tool.js';
import { registerBuiltinPlugins } from '../../builtin.js';
import { imageGenTools } from './image-gen.js';
import { googleSearchTool, searchProviderFromEnv } from './search.js';
import { visionToolsFromEnv } from './vision.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

// Three tool definitions in toolmeta.json's shape (docs/gta.md, "Official format: toolmeta.json and tool categories")
const io = (type: string, name: string | null, optional = false, def: unknown = null) => ({
  type,
  name,
  description: null,
  optional,
  default: def,
  filetype: null,
});
const TOOLMETA = {
  GoogleSearch: {
    name: 'GoogleSearch',
    description: 'The tool can search the input query text from Google and return the related results.',
    inputs: [io('text', 'query'), io('int', 'k', true, 10)],
    outputs: [io('text', null)],
  },
  ImageDescription: {
    name: 'ImageDescription',
    description: 'A useful tool that returns a brief description of the input image.',
    inputs: [io('image', 'image')],
    outputs: [io('text', null)],
  },
  TextToImage: {
    name: 'TextToImage',
    description: 'This tool can generate an image according to the input text.',
    inputs: [io('text', 'keywords')],
    outputs: [io('image', null)],
  },
};

let dir: string;
let server: ScriptedOpenAiServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'apiary-nettools-'));
  mkdirSync(join(dir, 'gta'));
  writeFileSync(join(dir, 'gta', 'toolmeta.json'), JSON.stringify(TOOLMETA));
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    `${JSON.stringify({ title: 'Café Zürich', url: 'https://c.example', text: 'open 8:00-18:00 daily' })}\n`,
  );
  writeFileSync(
    join(dir, 'dot.png'),
    await new Jimp({ width: 2, height: 2, color: 0x000000ff }).getBuffer('image/png'),
  );
  server = await startScriptedOpenAiServer({ respond: () => 'A black square.' });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('search, vision and image tools as apps through dispatchCall', () => {
  it('validates against the GTA catalog, runs each tool as its own app, and reports unavailable tools as TOOL_FAILED', async () => {
    const env = {
      APIARY_SEARCH_CORPUS: join(dir, 'corpus.jsonl'),
      APIARY_VISION_BASE_URL: server.url,
      APIARY_VISION_MODEL: 'vlm',
    };
    const tools = [
      googleSearchTool({ provider: searchProviderFromEnv(env) }),
      ...visionToolsFromEnv(env).filter((t) => t.name === 'ImageDescription'),
      ...imageGenTools({ endpoint: undefined }).filter((t) => t.name === 'TextToImage'),
    ];
    const ctx = {
      catalog: indexCatalog(loadCatalog('gta', { dataDir: dir })),
      apps: appRegistry(tools.map((t) => toolHandler(t, { outputDir: dir, readable: [] }))),
    };
    const search = await dispatchCall(
      { app: 'GoogleSearch', api: 'GoogleSearch', args: { query: 'Café Zürich', k: 3.0 } },
      ctx,
    );
    expect(search).toMatchObject({
      ok: true,
      content: [{ type: 'text', text: '1 - Café Zürich: open 8:00-18:00 daily\n\n' }],
    });

    const described = await dispatchCall(
      { app: 'ImageDescription', api: 'ImageDescription', args: { image: join(dir, 'dot.png') } },
      ctx,
    );
    expect(described).toMatchObject({ ok: true, content: [{ type: 'text', text: 'A black square.' }] });

    const badArgs = await dispatchCall({ app: 'GoogleSearch', api: 'GoogleSearch', args: { k: 2 } }, ctx);
    expect(badArgs).toMatchObject({ ok: false, error: { code: 'INPUT_INVALID' } });

    const image = await dispatchCall(
      { app: 'TextToImage', api: 'TextToImage', args: { keywords: 'cat' } },
      ctx,
    );
    expect(image).toMatchObject({
      ok: false,
      error: {
        code: 'TOOL_FAILED',
        message:
          'TextToImage is not available: set APIARY_IMAGE_BASE_URL and APIARY_IMAGE_MODEL (or --image-base-url and --image-model; key in APIARY_IMAGE_API_KEY) to an OpenAI-compatible images endpoint (/v1/images/generations and /v1/images/edits)',
      },
    });
  });
});
