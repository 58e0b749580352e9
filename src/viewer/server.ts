import { createReadStream, existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { Readable } from 'node:stream';
import { serve } from '@hono/node-server';
import { Hono, type MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { ApiaryError } from '../shared/index.js';
import { getTask, registerBuiltinTasks } from '../tasks/index.js';
import { resolveRunFile } from './run-files.js';
import { indexRun, type RunIndex, readSampleRecord, refreshIndex, type SampleEntry } from './run-index.js';
import { SAMPLE_ERROR_KINDS, type SampleScoring, scoringFor } from './sample-facts.js';
import { filterSamples, SampleQuerySchema } from './sample-filter.js';
import { VIEWER_CSS } from './ui/page-css.js';
import { VIEWER_HTML } from './ui/page-html.js';
import { VIEWER_JS } from './ui/page-script.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Media types of the files a trace may name (images first); anything else is sent as bytes. */
const MEDIA_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.jsonl': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
};

export interface ViewerAppOptions {
  /**
   * Host names the server answers to; null answers any. A viewer bound to loopback answers only
   * loopback names, so a web page cannot read the run through DNS rebinding.
   */
  allowedHosts?: readonly string[] | null;
}

const publicEntry = ({ offset: _o, length: _l, ...rest }: SampleEntry) => rest;

/** What the run page shows: the spec, counts for the filters, and the saved summary when there is one. */
export function runOverview(index: RunIndex) {
  const counts = {
    passed: 0,
    failed: 0,
    errors: { none: 0, ...Object.fromEntries(SAMPLE_ERROR_KINDS.map((k) => [k, 0])) } as Record<
      string,
      number
    >,
  };
  const categories = new Set<string>();
  for (const e of index.samples) {
    if (e.passed === true) counts.passed++;
    if (e.passed === false) counts.failed++;
    if (!e.errorKinds.length) counts.errors.none!++;
    for (const k of e.errorKinds) counts.errors[k]!++;
    if (e.category !== null) categories.add(e.category);
  }
  let summary: unknown = null;
  const summaryFile = join(index.folder, 'summary.json');
  if (existsSync(summaryFile))
    try {
      summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
    } catch {
      // an unreadable summary is left out; the records are what the viewer shows
    }
  return {
    folder: index.folder,
    resultsFile: index.resultsFile,
    spec: index.spec,
    specVersion: index.specVersion,
    records: index.samples.length,
    samples: new Set(index.samples.map((e) => e.id)).size,
    metricNames: index.metricNames,
    hasPass: index.hasPass,
    categories: [...categories],
    counts,
    truncatedTail: index.truncatedTail,
    bytes: index.bytes,
    headline: (summary as { headline?: unknown } | null)?.headline ?? null,
  };
}

/**
 * The viewer's HTTP routes: the page and its script and style, the run overview, a filtered page
 * of the sample list, one sample in full, and files of the run folder (nothing outside it).
 */
export function viewerApp(index: RunIndex, opts: ViewerAppOptions = {}): Hono {
  const app = new Hono();
  const allowed = opts.allowedHosts === undefined ? [...LOOPBACK] : opts.allowedHosts;
  if (allowed) {
    const hosts = new Set(allowed);
    app.use(async (c, next) => {
      const host = new URL(c.req.url).hostname;
      if (!hosts.has(host)) return c.text(`host ${host} is not served by this viewer`, 403);
      await next();
    });
  }
  // A served file never runs as a page of the viewer (an SVG with a script, an HTML file): set
  // outside secureHeaders so its page policy does not replace this one.
  app.use('/api/file', async (c, next) => {
    await next();
    c.res.headers.set('content-security-policy', "default-src 'none'; sandbox");
  });
  app.use(
    secureHeaders({
      // Everything comes from this server; model text is only ever set as text, and no inline
      // script would run even if it were not.
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
        frameAncestors: ["'none'"],
      },
    }),
  );

  app.get('/', (c) => c.html(VIEWER_HTML));
  app.get('/viewer.js', (c) => c.body(VIEWER_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/viewer.css', (c) => c.body(VIEWER_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }));

  // A run still being written grows: the overview, the list and a record index what was appended
  // first (one stat when nothing changed); concurrent requests share one refresh.
  let refreshing: Promise<number> | null = null;
  const upToDate: MiddlewareHandler = async (_c, next) => {
    refreshing ??= refreshIndex(index).finally(() => {
      refreshing = null;
    });
    await refreshing;
    await next();
  };
  app.use('/api/run', upToDate);
  app.use('/api/samples', upToDate);
  app.use('/api/samples/*', upToDate);

  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/api/run', (c) => c.json(runOverview(index)));

  app.get('/api/samples', (c) => {
    const parsed = SampleQuerySchema.safeParse(c.req.query());
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return c.json({ error: `${issue.path.join('.') || 'query'}: ${issue.message}` }, 400);
    }
    const page = filterSamples(index.samples, parsed.data, index.metricNames);
    return c.json({ ...page, items: page.items.map(publicEntry) });
  });

  app.get('/api/samples/:n', async (c) => {
    const raw = c.req.param('n');
    const n = /^\d+$/.test(raw) ? Number(raw) : -1;
    const entry = index.samples[n];
    if (!entry) return c.json({ error: `no sample record ${raw} (records: ${index.samples.length})` }, 404);
    const record = await readSampleRecord(index, n);
    return c.json({ entry: publicEntry(entry), record });
  });

  app.get('/api/file', (c) => {
    const requested = c.req.query('path') ?? '';
    const found = resolveRunFile(index.folder, requested);
    if (!found.ok)
      return found.reason === 'outside'
        ? c.text('refused: the viewer serves only files inside the run folder', 403)
        : c.text('not found', 404);
    const type = MEDIA_TYPES[extname(found.path).toLowerCase()] ?? 'application/octet-stream';
    const body = Readable.toWeb(createReadStream(found.path)) as ReadableStream;
    return c.body(body, 200, { 'content-type': type });
  });

  app.notFound((c) => c.json({ error: 'not found' }, 404));
  app.onError((error, c) => {
    const code = error instanceof ApiaryError ? error.code : 'INTERNAL';
    return c.json({ error: `${code}: ${error.message}` }, 500);
  });
  return app;
}

/** The task's way to read one sample's score, when the run's task is registered. */
export function scoringForTask(taskName: string): SampleScoring {
  registerBuiltinTasks();
  try {
    return scoringFor(getTask(taskName));
  } catch {
    return scoringFor();
  }
}

export interface ViewerOptions {
  /** Default 127.0.0.1; any other host serves the run to the network. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** How to read a sample's score; by default the run's task from the registry. */
  scoring?: SampleScoring;
}

export interface RunningViewer {
  url: string;
  index: RunIndex;
  close(): Promise<void>;
}

/** Indexes a run folder and serves the viewer on it until `close`. */
export async function startViewer(run: string, opts: ViewerOptions = {}): Promise<RunningViewer> {
  const host = opts.host ?? '127.0.0.1';
  const first = await indexRun(run, opts.scoring ?? ((spec) => scoringForTask(spec.task.name)));
  const app = viewerApp(first, { allowedHosts: LOOPBACK.has(host) ? [...LOOPBACK] : null });
  const server = await new Promise<ReturnType<typeof serve>>((resolvePromise, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: opts.port ?? 0 }, () => resolvePromise(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/`,
    index: first,
    close: () =>
      new Promise<void>((resolveClose, reject) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolveClose()));
      }),
  };
}
