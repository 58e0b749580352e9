// The viewer page script (runs in the browser; vanilla JS, no framework).
// Kept as a string so the package ships it without a build step; no backticks or `${` inside.
export const VIEWER_JS = String.raw`// Apiary trace viewer: plain DOM code. Every text from the run is set with textContent (never as
// HTML), so a model reply holding markup shows as the characters it is.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const state = { run: null, page: null, limit: 50 };

  function el(tag, props, children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') node.textContent = String(v);
      else if (k === 'onclick') node.addEventListener('click', v);
      else node.setAttribute(k, String(v));
    }
    for (const c of children || []) {
      if (c === null || c === undefined || c === false) continue;
      node.append(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return node;
  }
  const pre = (text, cls) => el('pre', { class: cls || 'text', text: text });
  const json = (value) => pre(JSON.stringify(value, null, 2), 'json');
  const fmt = (x) => (typeof x !== 'number' ? String(x) : Number.isInteger(x) ? String(x) : x.toFixed(4));
  const ms = (x) => (typeof x === 'number' ? Math.round(x) + ' ms' : '-');
  const tokens = (u) => (u ? u.inputTokens + ' in / ' + u.outputTokens + ' out' : '-');

  async function api(path) {
    const res = await fetch(path);
    const body = await res.json();
    if (!res.ok) throw new Error(body.error || res.statusText);
    return body;
  }

  // ---- state in the address: #outcome=failed&error=tool&n=3 ----
  const FILTERS = ['outcome', 'error', 'metric', 'min', 'max', 'category', 'q', 'offset'];
  function hashParams() {
    return new URLSearchParams(location.hash.slice(1));
  }
  function setHash(changes) {
    const p = hashParams();
    for (const [k, v] of Object.entries(changes)) {
      if (v === '' || v === null || v === undefined) p.delete(k);
      else p.set(k, String(v));
    }
    location.hash = p.toString();
  }

  // ---- run header and filters ----
  function renderRun(run) {
    const s = run.spec;
    const model = s.model ? s.model.id : 'no model';
    $('run-title').textContent = s.task.name + ' · ' + s.solver.name + ' · ' + model;
    const facts = [
      run.records + ' records (' + run.samples + ' samples' + (s.epochs > 1 ? ' × ' + s.epochs + ' epochs' : '') + ')',
      'started ' + s.startedAt,
    ];
    if (run.truncatedTail) facts.push('a torn last line was left out');
    $('run-facts').textContent = facts.join(' · ');
    const head = $('run-headline');
    head.replaceChildren();
    for (const [name, m] of Object.entries(run.headline || {}))
      head.append(el('span', { class: 'metric' }, [el('b', { text: name }), ' ' + fmt(m.mean)]));

    const outcome = $('f-outcome');
    outcome.replaceChildren();
    const outcomes = [['all', 'All ' + run.records]];
    if (run.hasPass) outcomes.push(['passed', 'Passed ' + run.counts.passed], ['failed', 'Failed ' + run.counts.failed]);
    for (const [value, label] of outcomes)
      outcome.append(
        el('button', { type: 'button', 'data-outcome': value, text: label, onclick: () => setHash({ outcome: value, offset: 0 }) }),
      );

    const errors = $('f-error');
    errors.replaceChildren();
    const kinds = [
      ['any', 'Any'],
      ['none', 'No error ' + run.counts.errors.none],
      ['infra', 'Infra ' + run.counts.errors.infra],
      ['solver', 'Solver ' + run.counts.errors.solver],
      ['decode', 'Decode ' + run.counts.errors.decode],
      ['tool', 'Tool ' + run.counts.errors.tool],
    ];
    for (const [value, label] of kinds)
      errors.append(
        el('button', { type: 'button', 'data-error': value, text: label, onclick: () => setHash({ error: value, offset: 0 }) }),
      );

    const metric = $('f-metric');
    metric.replaceChildren(...run.metricNames.map((m) => el('option', { value: m, text: m })));
    $('f-range').hidden = run.metricNames.length === 0;
    const cat = $('f-category');
    cat.replaceChildren(el('option', { value: '', text: 'all categories' }), ...run.categories.map((c) => el('option', { value: c, text: c })));
    $('f-category-wrap').hidden = run.categories.length === 0;
  }

  function syncFilterControls(p) {
    for (const b of document.querySelectorAll('#f-outcome button'))
      b.classList.toggle('on', b.dataset.outcome === (p.get('outcome') || 'all'));
    for (const b of document.querySelectorAll('#f-error button'))
      b.classList.toggle('on', b.dataset.error === (p.get('error') || 'any'));
    if (p.get('metric')) $('f-metric').value = p.get('metric');
    $('f-min').value = p.get('min') || '';
    $('f-max').value = p.get('max') || '';
    $('f-category').value = p.get('category') || '';
    $('f-q').value = p.get('q') || '';
  }

  // ---- the sample list ----
  async function loadList(p) {
    const q = new URLSearchParams();
    for (const k of FILTERS) if (p.get(k)) q.set(k, p.get(k));
    q.set('limit', String(state.limit));
    const page = await api('/api/samples?' + q.toString());
    state.page = page;
    const metric = p.get('metric') || state.run.metricNames[0];
    const body = $('list-body');
    body.replaceChildren();
    $('list-metric').textContent = metric || 'score';
    for (const e of page.items) {
      const score = metric !== undefined && e.metrics[metric] !== undefined ? fmt(e.metrics[metric]) : '-';
      const pass = e.passed === null ? '' : e.passed ? 'pass' : 'fail';
      const row = el('tr', { 'data-n': e.n, class: String(e.n) === p.get('n') ? 'open' : '' }, [
        el('td', { class: 'id', text: e.id }),
        el('td', { text: e.epoch }),
        el('td', { text: e.category || '' }),
        el('td', { class: 'score', text: score }),
        el('td', { class: 'pass ' + pass, text: pass }),
        el('td', {}, e.errorKinds.map((k) => el('span', { class: 'badge ' + k, text: k }))),
        el('td', { class: 'num', text: ms(e.durationMs) }),
      ]);
      row.addEventListener('click', () => setHash({ n: e.n }));
      body.append(row);
    }
    const end = page.offset + page.items.length;
    $('list-range').textContent = page.total ? page.offset + 1 + '–' + end + ' of ' + page.total : 'no sample matches';
    $('prev').disabled = page.offset === 0;
    $('next').disabled = end >= page.total;
  }

  // ---- one sample ----
  const IMAGE_LINE = /^\[image\]\((.+)\)$/;
  function image(path) {
    const img = el('img', { src: '/api/file?path=' + encodeURIComponent(path), alt: path });
    const caption = el('figcaption', { text: path });
    img.addEventListener('error', () => {
      img.remove();
      caption.textContent = path + ' (not shown: missing, or outside the run folder)';
      caption.classList.add('refused');
    });
    return el('figure', {}, [img, caption]);
  }
  function parseJsonLine(line) {
    const t = line.trim();
    if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
    try {
      return JSON.parse(t);
    } catch {
      return undefined;
    }
  }
  function rowsTable(rows) {
    const cols = [];
    for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k)) cols.push(k);
    return el('table', { class: 'rows' }, [
      el('thead', {}, [el('tr', {}, cols.map((c) => el('th', { text: c })))]),
      el('tbody', {}, rows.map((r) => el('tr', {}, cols.map((c) => el('td', { text: r[c] === undefined ? '' : typeof r[c] === 'string' ? r[c] : JSON.stringify(r[c]) }))))),
    ]);
  }
  /** An observation text: images as images, runs of JSON records as a table, JSON pretty, text as text. */
  function renderResult(text) {
    const box = el('div', { class: 'result' });
    const lines = String(text).split('\n');
    let textRun = [];
    let rowRun = [];
    const flush = () => {
      if (textRun.length) box.append(pre(textRun.join('\n')));
      if (rowRun.length === 1) box.append(json(rowRun[0]));
      else if (rowRun.length) box.append(rowsTable(rowRun));
      textRun = [];
      rowRun = [];
    };
    for (const line of lines) {
      const m = IMAGE_LINE.exec(line);
      const value = m ? undefined : parseJsonLine(line);
      if (m) {
        flush();
        box.append(image(m[1]));
      } else if (value !== undefined && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        if (textRun.length) flush();
        rowRun.push(value);
      } else if (value !== undefined) {
        flush();
        box.append(json(value));
      } else {
        if (rowRun.length) flush();
        textRun.push(line);
      }
    }
    flush();
    return box;
  }
  function renderContent(content) {
    if (typeof content === 'string') return pre(content);
    if (!Array.isArray(content)) return json(content);
    const box = el('div', { class: 'parts' });
    for (const part of content) {
      if (part && part.type === 'text') box.append(pre(part.text));
      else if (part && part.type === 'tool-call')
        box.append(el('div', { class: 'call-line' }, [el('code', { text: part.toolName }), json(part.input)]));
      else if (part && part.type === 'tool-result') {
        const out = part.output || {};
        box.append(
          el('div', { class: 'call-line' }, [
            el('span', { class: 'muted', text: 'result of ' + part.toolName + ' (' + part.toolCallId + ')' }),
            typeof out.value === 'string' ? renderResult(out.value) : json(out.value === undefined ? out : out.value),
          ]),
        );
      } else box.append(json(part));
    }
    return box;
  }
  function kv(pairs) {
    return el('dl', { class: 'kv' }, pairs.filter((p) => p[1] !== undefined && p[1] !== null && p[1] !== '').flatMap((p) => [el('dt', { text: p[0] }), el('dd', { text: p[1] })]));
  }

  function renderTurn(t) {
    const sent = [];
    if (t.sent && t.sent.system)
      sent.push(
        el('details', { class: 'msg system' }, [el('summary', { class: 'role', text: 'system (' + t.sent.system.length + ' characters)' }), pre(t.sent.system)]),
      );
    for (const m of (t.sent && t.sent.messages) || [])
      sent.push(el('div', { class: 'msg ' + m.role }, [el('span', { class: 'role', text: m.role }), renderContent(m.content)]));
    const calls = (t.reply.toolCalls || []).map((c) =>
      el('div', { class: 'proposed' }, [el('code', { class: 'tool', text: c.name }), el('span', { class: 'muted', text: ' ' + c.id }), json(c.input)]),
    );
    return el('div', { class: 'turn' }, [
      el('h4', { text: 'Model turn' }),
      kv([
        ['decision', t.decision],
        ['tokens', tokens(t.usage)],
        ['latency', ms(t.latencyMs)],
        ['attempts', t.attempts],
        ['faults', t.faults && t.faults.length ? t.faults.join(', ') : undefined],
      ]),
      sent.length ? el('details', { class: 'sent', open: '' }, [el('summary', { text: 'Messages sent (' + sent.length + ')' }), ...sent]) : null,
      el('div', { class: 'msg assistant reply' }, [el('span', { class: 'role', text: 'reply' }), pre(t.reply.text || '')]),
      ...calls,
    ]);
  }
  function renderCall(c) {
    return el('div', { class: 'call ' + (c.ok ? 'ok' : 'err') }, [
      el('h4', {}, [el('code', { class: 'tool', text: c.tool }), c.app ? el('span', { class: 'muted', text: ' ' + c.app + '.' + c.api }) : null, el('span', { class: 'muted', text: ' · ' + ms(c.durationMs) })]),
      el('div', { class: 'label', text: 'arguments' }),
      json(c.args),
      c.ok ? el('div', { class: 'label', text: 'result' }) : el('div', { class: 'label error', text: 'error ' + c.error.code }),
      c.ok ? renderResult(c.result === undefined ? '' : c.result) : pre(c.error.message, 'text error'),
    ]);
  }
  function renderStop(s) {
    return el('div', { class: 'stop' }, [
      el('h4', { text: 'Stop' }),
      kv([
        ['stop reason', s.reason],
        ['answer', s.answer],
        ['detail', s.detail],
        ['tokens', tokens(s.usage)],
        ['total time', ms(s.totalMs)],
      ]),
    ]);
  }
  /** An event this viewer does not draw (a kind added since, or one not in the shape it reads): as written. */
  function renderOther(item) {
    return el('div', { class: 'event other' }, [el('h4', { text: item.label }), json(item.event)]);
  }
  /**
   * The sample's events (the server checked each known kind's shape), step by step: model turns
   * with their usage, tool calls with arguments and outcome, the stop; anything else raw.
   */
  function renderTimeline(timeline) {
    const box = el('section', { class: 'trace' }, [el('h3', { text: 'Trace' })]);
    if (timeline.source === 'output.trace')
      box.append(el('p', { class: 'muted events-source', text: "Recorded before events: the trace the solver kept in its output." }));
    if (!timeline.items.length) box.append(el('p', { class: 'muted', text: 'No events recorded.' }));
    const steps = new Map();
    for (const item of timeline.items) {
      const step = item.event && typeof item.event.step === 'number' ? item.event.step : 0;
      if (!steps.has(step)) steps.set(step, []);
      steps.get(step).push(item);
    }
    for (const [step, items] of steps) {
      const body = el('div', { class: 'step', 'data-step': step }, [el('h3', { text: 'Step ' + step })]);
      for (const item of items)
        body.append(
          item.kind === 'turn' ? renderTurn(item.event) : item.kind === 'call' ? renderCall(item.event) : item.kind === 'stop' ? renderStop(item.event) : renderOther(item),
        );
      box.append(body);
    }
    return box;
  }

  /** Image paths an output names outside a trace: content parts {type: 'image', path} and [image](path) lines. */
  function imagesIn(value, out) {
    if (typeof value === 'string') {
      for (const line of value.split('\n')) {
        const m = IMAGE_LINE.exec(line);
        if (m && !out.includes(m[1])) out.push(m[1]);
      }
    } else if (Array.isArray(value)) for (const v of value) imagesIn(v, out);
    else if (value && typeof value === 'object') {
      if (value.type === 'image' && typeof value.path === 'string') {
        if (!out.includes(value.path)) out.push(value.path);
      } else for (const v of Object.values(value)) imagesIn(v, out);
    }
    return out;
  }

  async function openSample(n) {
    const box = $('detail');
    if (n === null) {
      box.replaceChildren(el('p', { class: 'muted', text: 'Open a sample to see its trace.' }));
      return;
    }
    const { entry, record, view } = await api('/api/samples/' + encodeURIComponent(n));
    // the output shown: what the task's hints do not leave out (fields that repeat the events)
    const hidden = view.hiddenOutputFields;
    const out = record.output && typeof record.output === 'object' && !Array.isArray(record.output) ? record.output : null;
    const rest = out && hidden.length ? Object.fromEntries(Object.entries(out).filter(([k]) => !hidden.includes(k))) : record.output;
    const legacyTrace = view.timeline !== null && view.timeline.source === 'output.trace';
    const metrics = Object.entries(entry.metrics);
    const parts = [
      el('h2', { text: entry.id + (state.run.spec.epochs > 1 ? ' · epoch ' + entry.epoch : '') }),
      kv([
        ['category', entry.category],
        ['duration', ms(entry.durationMs)],
        ['model calls', entry.modelCalls],
        ['tokens', tokens(entry.usage)],
        ['cost', record.cost === undefined ? undefined : '$' + record.cost],
        ['started', record.startedAt],
      ]),
      record.error ? el('div', { class: 'sample-error' }, [el('b', { text: 'error ' }), el('span', { text: record.error })]) : null,
      el('section', { class: 'verdict' }, [
        el('h3', { text: "Scorer's verdict" }),
        entry.passed === null ? null : el('p', { class: 'pass ' + (entry.passed ? 'pass' : 'fail'), text: entry.passed ? 'passed' : 'failed' }),
        metrics.length
          ? el('table', { class: 'metrics' }, [el('tbody', {}, metrics.map(([k, v]) => el('tr', {}, [el('th', { text: k }), el('td', { text: fmt(v) })])))])
          : null,
        view.scoreFacts.length ? kv(view.scoreFacts) : null,
        el('details', {}, [el('summary', { text: 'Score record' }), json(record.score)]),
      ]),
      view.timeline ? renderTimeline(view.timeline) : el('p', { class: 'muted no-events', text: 'Recorded before events: this record has no event log.' }),
      view.answer === null ? null : el('section', { class: 'answer' }, [el('h3', { text: 'Answer' }), renderResult(view.answer)]),
      el('section', { class: 'output' }, [el('h3', { text: 'Output' }), legacyTrace ? el('details', {}, [el('summary', { text: 'Output fields' }), json(rest)]) : typeof rest === 'string' ? renderResult(rest) : json(rest)]),
    ];
    const images = imagesIn(rest, []);
    if (images.length) parts.push(el('section', { class: 'images' }, [el('h3', { text: 'Images in the output' }), ...images.map(image)]));
    box.replaceChildren(...parts.filter((p) => p !== null));
    for (const r of document.querySelectorAll('#list-body tr')) r.classList.toggle('open', r.dataset.n === String(n));
  }

  // ---- wiring ----
  let lastListKey = null;
  async function render() {
    const p = hashParams();
    syncFilterControls(p);
    try {
      const listKey = FILTERS.map((k) => p.get(k) || '').join('\u0000');
      if (listKey !== lastListKey) {
        lastListKey = listKey;
        await loadList(p);
      }
      await openSample(p.get('n'));
      $('status').textContent = '';
    } catch (error) {
      $('status').textContent = String(error.message || error);
    }
  }

  /** A run still being written: the server indexes what was appended; the page shows it. */
  async function reload() {
    try {
      state.run = await api('/api/run');
      renderRun(state.run);
      lastListKey = null;
      await render();
    } catch (error) {
      $('status').textContent = String(error.message || error);
    }
  }

  async function main() {
    $('apply-range').addEventListener('click', () =>
      setHash({ metric: $('f-metric').value, min: $('f-min').value, max: $('f-max').value, offset: 0 }),
    );
    $('f-category').addEventListener('change', () => setHash({ category: $('f-category').value, offset: 0 }));
    $('f-q').addEventListener('change', () => setHash({ q: $('f-q').value, offset: 0 }));
    $('prev').addEventListener('click', () => setHash({ offset: Math.max(0, state.page.offset - state.limit) }));
    $('next').addEventListener('click', () => setHash({ offset: state.page.offset + state.limit }));
    $('reload').addEventListener('click', reload);
    window.addEventListener('hashchange', render);
    try {
      state.run = await api('/api/run');
      renderRun(state.run);
      await render();
      document.body.dataset.ready = '1';
    } catch (error) {
      $('status').textContent = String(error.message || error);
    }
  }
  main();
})();
`;
