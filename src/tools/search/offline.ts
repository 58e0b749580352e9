import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { Bm25Index } from '../../retrieval/index.js';
import {
  checkJsonDepth,
  InputInvalidError,
  NotFoundError,
  parseWith,
  readTextFile,
} from '../../shared/index.js';
import type { SearchProvider, SearchResults } from './results.js';

/** One document of an offline search corpus. */
const CorpusDocSchema = z.object({
  title: z.string(),
  url: z.string(),
  text: z.string(),
});
type CorpusDoc = z.infer<typeof CorpusDocSchema>;

/** Reads a JSONL corpus: one `{title, url, text}` object per non-empty line. */
function readJsonlCorpus(file: string): CorpusDoc[] {
  const docs: CorpusDoc[] = [];
  const lines = readTextFile(file).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    const record = `line ${i + 1}`;
    checkJsonDepth(line, { file, record });
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new InputInvalidError({ file, record }, `not valid JSON (${(error as Error).message})`, {
        cause: error,
      });
    }
    docs.push(parseWith(CorpusDocSchema, value, { file, record }));
  }
  return docs;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) return markdownFiles(p);
      return /\.(md|markdown)$/i.test(entry.name) ? [p] : [];
    });
}

/**
 * A Markdown document: the title is the first `# ` heading (else the file name without its
 * extension), the text is the rest; the URL is the file's `file://` URL.
 */
function markdownDoc(file: string, markdown: string): CorpusDoc {
  const heading = /^#[ \t]+(.+?)[ \t#]*$/m.exec(markdown);
  const title = heading ? heading[1]!.trim() : basename(file, extname(file));
  const body = heading
    ? markdown.slice(0, heading.index) + markdown.slice(heading.index + heading[0].length)
    : markdown;
  return { title, url: pathToFileURL(resolve(file)).href, text: body.trim() };
}

/**
 * Loads a corpus: a `.jsonl` file of `{title, url, text}` lines, or a folder of Markdown files
 * (searched recursively, in name order). Bad lines name the file, line and field.
 */
function loadSearchCorpus(path: string): CorpusDoc[] {
  if (!existsSync(path)) throw new NotFoundError('search corpus', path);
  if (statSync(path).isDirectory()) {
    const files = markdownFiles(path);
    if (files.length === 0)
      throw new InputInvalidError({ file: path }, 'the folder holds no Markdown (.md) files');
    return files.map((f) => markdownDoc(f, readTextFile(f)));
  }
  return readJsonlCorpus(path);
}

/** The snippet of a hit: the document's text with whitespace runs made one space, cut at `max` characters. */
function snippetOf(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length > max ? `${chars.slice(0, max).join('').trimEnd()}...` : flat;
}

export interface OfflineSearchOptions {
  /** A `.jsonl` file or a folder of Markdown files. */
  corpus: string;
  /** Characters of document text shown per hit (default 300). */
  snippetChars?: number;
}

/**
 * Search over a local corpus with Apiary's BM25 (title and text indexed together): for tests and
 * air-gapped runs. The corpus is read and indexed on the first search. Documents that share no
 * term with the query are not results.
 */
export function offlineSearchProvider(opts: OfflineSearchOptions): SearchProvider {
  const snippetChars = opts.snippetChars ?? 300;
  let loaded: { docs: CorpusDoc[]; index: Bm25Index } | undefined;
  const load = () => {
    if (!loaded) {
      const docs = loadSearchCorpus(opts.corpus);
      loaded = { docs, index: new Bm25Index(docs.map((d) => `${d.title}\n${d.text}`)) };
    }
    return loaded;
  };
  return {
    name: `offline(${opts.corpus})`,
    unavailable: () =>
      existsSync(opts.corpus)
        ? undefined
        : `the offline search corpus ${opts.corpus} does not exist (set APIARY_SEARCH_CORPUS to a .jsonl file or a folder of Markdown files)`,
    async search(query: string, k: number): Promise<SearchResults> {
      const { docs, index } = load();
      const hits = index.searchSync(query, Math.max(0, k)).filter((h) => h.score > 0);
      return {
        organic: hits.map((h) => {
          const doc = docs[h.doc]!;
          return { title: doc.title, link: doc.url, snippet: snippetOf(doc.text, snippetChars) };
        }),
      };
    },
  };
}
