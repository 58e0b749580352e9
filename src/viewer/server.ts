import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { serve } from '@hono/node-server';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';
import { defaultPluginRegistry, type PluginRegistry, type ViewerHints } from '../plugins/index.js';
import { taskReportParts } from '../reports/index.js';
import { ApiaryError, jsonDepthExceededAt, redactSecrets } from '../shared/index.js';
import { defaultTaskRegistry, type TaskRegistry } from '../tasks/index.js';
import { runFileAccess } from './run-files.js';
import { indexRun, type RunIndex, readSampleRecord, refreshIndex, type SampleEntry } from './run-index.js';
import { SAMPLE_ERROR_KINDS, type SampleScoring, scoringFor } from './sample-facts.js';
import { filterSamples, SampleQuerySchema } from './sample-filter.js';
import { sampleHintsView, sampleTimeline } from './sample-view.js';
import { VIEWER_CSS } from './ui/page-css.js';
import { VIEWER_HTML } from './ui/page-html.js';
import { VIEWER_JS } from './ui/page-script.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export interface ViewerAppOptions {
  /**
   * The secret every request must carry (the `token` query parameter, or the cookie the server
   * sets on the first request that had it): without it the viewer answers 403, so another user of
   * the machine cannot read the run. `startViewer` makes a random one.
   */
  token: string;
  /**
   * Host names the server answers to; null answers any. A viewer bound to loopback answers only
   * loopback names, so a web page cannot read the run through DNS rebinding.
   */
  allowedHosts?: readonly string[] | null;
  /** What the run's task shows of a sample's output and score (its plugin's viewer hints). */
  hints?: ViewerHints;
}

const publicEntry = ({ offset: _o, length: _l, ...rest }: SampleEntry) => rest;

/** What the run page shows: the spec, counts for the filters, and the saved summary when there is one. */
function runOverview(index: RunIndex) {
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
      const text = readFileSync(summaryFile, 'utf8');
      summary = jsonDepthExceededAt(text) < 0 ? JSON.parse(text) : null;
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

/** Bytes of randomness in a viewer token (256 bits). */
export const VIEWER_TOKEN_BYTES = 32;

/** A fresh viewer token: random, URL-safe. */
export const newViewerToken = () => randomBytes(VIEWER_TOKEN_BYTES).toString('base64url');

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compares in constant time (digests of equal length, whatever the lengths of the inputs). */
function sameToken(given: string | undefined, token: string): boolean {
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/**
 * The cookie that carries the token after the first request. Cookies are shared by every port of
 * a host, so its name holds the port: two viewers on one machine keep their own.
 */
const tokenCookie = (c: Context) => `apiary_viewer_${new URL(c.req.url).port || 'default'}`;

/**
 * A JSON answer with API keys taken out: a run written before keys were redacted (or by another
 * tool) may hold one in an error text.
 */
function redactedJson(c: Context, value: unknown, status: 200 | 500 = 200): Response {
  return c.body(redactSecrets(JSON.stringify(value)), status, { 'content-type': 'application/json' });
}

/**
 * The viewer's HTTP routes: the page and its script and style, the run overview, a filtered page
 * of the sample list, one sample in full, and the images the run's records name (nothing else).
 * Every request needs the token.
 */
export function viewerApp(index: RunIndex, opts: ViewerAppOptions): Hono {
  const app = new Hono();
  const allowed = opts.allowedHosts === undefined ? [...LOOPBACK] : opts.allowedHosts;
  if (!opts.token) throw new ApiaryError('USAGE', 'the viewer needs a token (newViewerToken())');
  if (allowed) {
    const hosts = new Set(allowed);
    app.use(async (c, next) => {
      const host = new URL(c.req.url).hostname;
      if (!hosts.has(host)) return c.text(`host ${host} is not served by this viewer`, 403);
      await next();
    });
  }
  app.use(async (c, next) => {
    const cookie = tokenCookie(c);
    if (sameToken(getCookie(c, cookie), opts.token)) return next();
    if (!sameToken(c.req.query('token'), opts.token))
      return c.text('refused: open the address `apiary view` printed (it holds the token)', 403);
    // HttpOnly: no script reads it; Strict: no other site's page sends it
    setCookie(c, cookie, opts.token, { httpOnly: true, sameSite: 'Strict', path: '/' });
    // the page itself: drop the token from the address bar and the history
    if (c.req.method === 'GET' && c.req.path === '/') return c.redirect('/', 303);
    return next();
  });
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
  app.get('/api/run', (c) => redactedJson(c, runOverview(index)));

  app.get('/api/samples', (c) => {
    const parsed = SampleQuerySchema.safeParse(c.req.query());
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return c.json({ error: `${issue.path.join('.') || 'query'}: ${issue.message}` }, 400);
    }
    const page = filterSamples(index.samples, parsed.data, index.metricNames);
    return redactedJson(c, { ...page, items: page.items.map(publicEntry) });
  });

  app.get('/api/samples/:n', async (c) => {
    const raw = c.req.param('n');
    const n = /^\d+$/.test(raw) ? Number(raw) : -1;
    const entry = index.samples[n];
    if (!entry) return c.json({ error: `no sample record ${raw} (records: ${index.samples.length})` }, 404);
    const { events: _events, ...record } = (await readSampleRecord(index, n))!;
    // the events go as the timeline (each item holds its event as written), not twice
    const timeline = sampleTimeline({ events: _events, output: record.output });
    const view = { timeline, ...sampleHintsView(record, opts.hints, timeline) };
    return redactedJson(c, { entry: publicEntry(entry), record, view });
  });

  const realOfNamed = new Map<string, string>();
  app.use('/api/file', upToDate);
  app.get('/api/file', (c) => {
    const requested = c.req.query('path') ?? '';
    const access = runFileAccess(index.folder, requested, index.namedFiles, realOfNamed);
    if (!access.ok) return c.text(access.reason, access.status);
    const body = Readable.toWeb(createReadStream(access.path)) as ReadableStream;
    return c.body(body, 200, { 'content-type': access.mediaType });
  });

  app.notFound((c) => c.json({ error: 'not found' }, 404));
  app.onError((error, c) => {
    const code = error instanceof ApiaryError ? error.code : 'INTERNAL';
    return redactedJson(c, { error: `${code}: ${error.message}` }, 500);
  });
  return app;
}

/** How the viewer reads a task's samples: its scores (the task's own metrics) and its plugin's hints. */
interface TaskView {
  scoring: SampleScoring;
  hints: ViewerHints;
}

/**
 * The run's task as the viewer sees it: the task definition (from the registry, after the
 * plugins' tasks are loaded into it) and the viewer hints of its plugin's report parts. A task
 * nothing knows gives a bare numeric score and no hints.
 */
async function taskView(
  taskName: string,
  plugins: PluginRegistry = defaultPluginRegistry,
  registry: TaskRegistry = defaultTaskRegistry,
): Promise<TaskView> {
  await plugins.loadTasks(registry);
  const hints = (await taskReportParts(taskName, plugins))?.task.viewer ?? {};
  return { scoring: registry.has(taskName) ? scoringFor(registry.get(taskName)) : scoringFor(), hints };
}

/** The task's way to read one sample's score, when the run's task is registered. */
export async function scoringForTask(
  taskName: string,
  plugins: PluginRegistry = defaultPluginRegistry,
): Promise<SampleScoring> {
  return (await taskView(taskName, plugins)).scoring;
}

export interface ViewerOptions {
  /** Default 127.0.0.1; any other host serves the run to the network. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** How to read a sample's score; by default the run's task from the registry. */
  scoring?: SampleScoring;
  /** What to show of a sample's output and score; by default the hints of the run's task's plugin. */
  hints?: ViewerHints;
  /** Where the run's task and its hints come from (default: the registered plugins). */
  plugins?: PluginRegistry;
  /** The token requests must carry; by default a new random one. */
  token?: string;
}

export interface RunningViewer {
  /** The address to open: it holds the token (`/?token=…`). */
  url: string;
  token: string;
  index: RunIndex;
  close(): Promise<void>;
}

/** Indexes a run folder and serves the viewer on it until `close`. */
export async function startViewer(run: string, opts: ViewerOptions = {}): Promise<RunningViewer> {
  const host = opts.host ?? '127.0.0.1';
  let hints = opts.hints;
  const first = await indexRun(run, async (spec) => {
    if (opts.scoring && opts.hints) return opts.scoring;
    const view = await taskView(spec.task.name, opts.plugins);
    hints ??= view.hints;
    return opts.scoring ?? view.scoring;
  });
  const token = opts.token ?? newViewerToken();
  const app = viewerApp(first, {
    token,
    allowedHosts: LOOPBACK.has(host) ? [...LOOPBACK] : null,
    ...(hints ? { hints } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolvePromise, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: opts.port ?? 0 }, () => resolvePromise(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/?token=${token}`,
    token,
    index: first,
    close: () =>
      new Promise<void>((resolveClose, reject) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolveClose()));
      }),
  };
}
