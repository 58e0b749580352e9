import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiaryError } from '../../../shared/index.js';
import { offlineSearchProvider } from '../../../tools/search/offline.js';
import { formatSearchResults } from '../../../tools/search/results.js';
import { serperSearchProvider } from '../../../tools/search/serper.js';
import { toolHandler } from '../../../tools/tool.js';
import { googleSearchTool, searchProviderFromEnv } from './search.js';

const ctx = { outputDir: tmpdir(), readable: [] };
const textOf = async (p: Promise<unknown>) => ((await p) as { type: 'text'; text: string }[])[0]!.text;

describe('formatSearchResults (AgentLego GoogleSearch rendering)', () => {
  it('numbers answer box, knowledge graph and the first k hits, each followed by a blank line', () => {
    const text = formatSearchResults(
      {
        answerBox: { answer: '8,849 m' },
        knowledgeGraph: {
          title: 'Everest',
          type: 'Mountain',
          description: 'Highest\nmountain',
          attributes: { Elevation: '8,849 m', First: 1953 },
        },
        organic: [
          { title: 'Wiki', link: 'https://w', snippet: 'Everest is high.' },
          { snippet: 'no title here', attributes: { Rating: '4.5' } },
          { title: 'Third', snippet: 'cut by k' },
        ],
      },
      { k: 2 },
    );
    expect(text).toBe(
      '1 - Answer box: 8,849 m\n\n' +
        '2 - Everest knowledge graph: Mountain. Highest mountain(Elevation: 8,849 m, First: 1953)\n\n' +
        '3 - Wiki: Everest is high.\n\n' +
        '4 - no title here(Rating: 4.5)\n\n',
    );
  });

  it('puts the link after the title with withUrl, cuts at maxOutLen code points plus "..."', () => {
    const results = { organic: [{ title: 'Café', link: 'https://c', snippet: 'Zürich' }] };
    expect(formatSearchResults(results, { k: 10, withUrl: true })).toBe('1 - Café: (https://c)Zürich\n\n');
    expect(formatSearchResults({ organic: [{ title: '😀😀😀' }] }, { k: 1, maxOutLen: 6 })).toBe(
      '1 - 😀😀...',
    );
  });

  it('says so when there is nothing', () => {
    expect(formatSearchResults({ organic: [] }, { k: 10 })).toBe('No good Google Search Result was found');
  });
});

describe('offline search provider', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'apiary-search-'));
    const docs = [
      { title: 'Café Zürich', url: 'https://cafe.example/zurich', text: 'open 8:00-18:00 daily' },
      {
        title: 'Bern bakery',
        url: 'https://bakery.example',
        text: 'Fresh bread in Bern. Opening hours 7-12.',
      },
      {
        title: 'Bern opening hours guide',
        url: 'https://guide.example',
        text: 'Opening hours of shops in Bern: opening hours vary; opening at 9.',
      },
      { title: 'Volcanoes', url: 'https://volcano.example', text: 'Lava and ash.' },
    ];
    writeFileSync(join(dir, 'corpus.jsonl'), `${docs.map((d) => JSON.stringify(d)).join('\n')}\n`);
    writeFileSync(join(dir, 'bad.jsonl'), '{"title":"a","url":"u","text":"t"}\n\n{"title":"b","url":"u"}\n');
    mkdirSync(join(dir, 'md', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'md', 'tides.md'), 'Intro line.\n# Tide tables\nHigh tide at noon in Brest.\n');
    writeFileSync(join(dir, 'md', 'sub', 'moon.md'), 'The moon pulls the tide.\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ranks a JSONL corpus with BM25 and renders the top k in order; unrelated documents are left out', async () => {
    const tool = googleSearchTool({ provider: offlineSearchProvider({ corpus: join(dir, 'corpus.jsonl') }) });
    // "opening hours" occurs 3× in the guide (title + text), once in the bakery; "Bern" in both;
    // the café matches only "Zürich" (absent from the query) and is not a result.
    const text = await textOf(tool.run({ query: 'Bern opening hours', k: 5 }, ctx));
    expect(text).toBe(
      '1 - Bern opening hours guide: Opening hours of shops in Bern: opening hours vary; opening at 9.\n\n' +
        '2 - Bern bakery: Fresh bread in Bern. Opening hours 7-12.\n\n',
    );
    expect(await textOf(tool.run({ query: 'Bern opening hours', k: 1.0 }, ctx))).toBe(
      '1 - Bern opening hours guide: Opening hours of shops in Bern: opening hours vary; opening at 9.\n\n',
    );
    expect(await textOf(tool.run({ query: 'Café Zürich', k: '3' }, ctx))).toBe(
      '1 - Café Zürich: open 8:00-18:00 daily\n\n',
    );
    expect(await textOf(tool.run({ query: 'quantum chromodynamics' }, ctx))).toBe(
      'No good Google Search Result was found',
    );
  });

  it('reads a Markdown folder: first heading is the title, the file URL is the link', async () => {
    const provider = offlineSearchProvider({ corpus: join(dir, 'md'), snippetChars: 20 });
    const results = await provider.search('tide', 10);
    // BM25 (k1 1.2, b 0.75, avgdl 6): tides.md has "tide" twice in 8 terms → 2·2.2/(2+1.5) = 1.257;
    // moon.md once in 4 terms → 2.2/(1+0.9) = 1.158
    expect(results.organic).toEqual([
      {
        title: 'Tide tables',
        link: pathToFileURL(join(dir, 'md', 'tides.md')).href,
        snippet: 'Intro line. High tid...',
      },
      {
        title: 'moon',
        link: pathToFileURL(join(dir, 'md', 'sub', 'moon.md')).href,
        snippet: 'The moon pulls the t...',
      },
    ]);
  });

  it('names the file, line and field of a bad corpus line; a missing corpus is unavailable', async () => {
    const bad = offlineSearchProvider({ corpus: join(dir, 'bad.jsonl') });
    await expect(bad.search('a', 3)).rejects.toThrow(
      `${join(dir, 'bad.jsonl')}: record line 3: field "text"`,
    );
    const missing = googleSearchTool({
      provider: offlineSearchProvider({ corpus: join(dir, 'nope.jsonl') }),
    });
    expect(missing.unavailable?.()).toBe(
      `the offline search corpus ${join(dir, 'nope.jsonl')} does not exist (set APIARY_SEARCH_CORPUS to a .jsonl file or a folder of Markdown files)`,
    );
  });
});

interface SerperRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

describe('Serper provider against a loopback server', () => {
  let server: Server;
  let base: string;
  const requests: SerperRequest[] = [];
  let answer: { status: number; body: string } = { status: 200, body: '{}' };
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        requests.push({
          path: req.url ?? '',
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString()),
        });
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('posts {q, num} with the key header and renders the answer', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        searchParameters: { q: 'x' },
        organic: [
          { title: 'A', link: 'https://a', snippet: 'first', position: 1 },
          { title: 'B', link: 'https://b', snippet: 'second\nline', position: 2 },
        ],
      }),
    };
    const tool = googleSearchTool({
      provider: serperSearchProvider({ apiKey: 'k-123', baseURL: `${base}/` }),
    });
    const text = await textOf(tool.run({ query: 'who is first', k: 2 }, ctx));
    expect(text).toBe('1 - A: first\n\n2 - B: second line\n\n');
    const last = requests.at(-1)!;
    expect(last.path).toBe('/search');
    expect(last.body).toEqual({ q: 'who is first', num: 2 });
    expect(last.headers['x-api-key']).toBe('k-123');
  });

  it('turns HTTP 500 and a body that is not JSON into TOOL_FAILED', async () => {
    const provider = serperSearchProvider({ apiKey: 'k', baseURL: base });
    answer = { status: 500, body: '{"message":"boom"}' };
    const err = await provider.search('q', 3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiaryError);
    expect((err as ApiaryError).code).toBe('TOOL_FAILED');
    expect((err as ApiaryError).message).toBe(
      `GoogleSearch (serper): HTTP 500 from ${base}/search: {"message":"boom"}`,
    );
    answer = { status: 200, body: '<html>' };
    await expect(provider.search('q', 3)).rejects.toThrow(
      `GoogleSearch (serper): the answer of ${base}/search is not JSON: <html>`,
    );
  });
});

describe('searchProviderFromEnv', () => {
  it('is unavailable with a message naming the variables when nothing is set', async () => {
    const tool = googleSearchTool({ provider: searchProviderFromEnv({}) });
    const handler = toolHandler(tool, { outputDir: tmpdir(), readable: [] });
    await expect(handler.call('GoogleSearch', { query: 'q' }, {} as never)).rejects.toThrow(
      'GoogleSearch is not available: set SERPER_API_KEY to a Serper.dev key for web search, or APIARY_SEARCH_CORPUS to a .jsonl file or Markdown folder for offline search',
    );
  });

  it('prefers the corpus when one is set, and honours an explicit provider', () => {
    expect(searchProviderFromEnv({ APIARY_SEARCH_CORPUS: 'c.jsonl', SERPER_API_KEY: 'k' }).name).toBe(
      'offline(c.jsonl)',
    );
    expect(
      searchProviderFromEnv({
        APIARY_SEARCH_CORPUS: 'c.jsonl',
        SERPER_API_KEY: 'k',
        APIARY_SEARCH_PROVIDER: 'serper',
      }).name,
    ).toBe('serper');
    expect(() => searchProviderFromEnv({ APIARY_SEARCH_PROVIDER: 'bing' })).toThrow(
      'unknown search provider "bing"',
    );
  });
});
