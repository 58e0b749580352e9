// The viewer page style.
// Kept as a string so the package ships it without a build step; no backticks or `${` inside.
export const VIEWER_CSS = `:root { --fg: #1d2330; --muted: #6b7280; --line: #e3e6ec; --bg2: #f6f7f9; --ok: #137a3b; --bad: #b42318; font-family: "DejaVu Sans", system-ui, sans-serif; font-size: 14px; color: var(--fg); }
body { margin: 0; }
header { padding: 10px 16px; border-bottom: 1px solid var(--line); }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 0 0 8px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
h4 { font-size: 13px; margin: 8px 0 4px; }
.muted { color: var(--muted); }
#status { color: var(--bad); }
.metric { margin-right: 14px; }
main { display: grid; grid-template-columns: minmax(360px, 42%) 1fr; min-height: calc(100vh - 80px); }
#samples { border-right: 1px solid var(--line); padding: 8px 12px; overflow: auto; }
#detail { padding: 8px 16px; overflow: auto; }
#filters .group { margin: 4px 0; display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
#filters .label { width: 70px; color: var(--muted); }
.buttons button { border: 1px solid var(--line); background: white; padding: 2px 8px; border-radius: 10px; cursor: pointer; }
.buttons button.on { background: var(--fg); color: white; }
#f-min, #f-max { width: 70px; }
table { border-collapse: collapse; }
#list { width: 100%; margin-top: 8px; }
#list th, #list td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--line); }
#list tbody tr { cursor: pointer; }
#list tbody tr:hover { background: var(--bg2); }
#list tbody tr.open { background: #e8eefc; }
td.num, td.score { text-align: right; font-variant-numeric: tabular-nums; }
.pass.pass { color: var(--ok); font-weight: bold; }
.pass.fail { color: var(--bad); font-weight: bold; }
.badge { display: inline-block; font-size: 11px; padding: 0 5px; margin-right: 3px; border-radius: 6px; background: #fde7e7; color: var(--bad); }
#pager { margin: 8px 0; }
pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0; padding: 4px 6px; background: var(--bg2); border-radius: 4px; font-size: 12px; }
pre.error { background: #fde7e7; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 4px 0; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; }
.sample-error { background: #fde7e7; padding: 6px; border-radius: 4px; }
table.metrics th { text-align: left; font-weight: normal; color: var(--muted); padding-right: 12px; }
.step { border-left: 3px solid var(--line); padding-left: 10px; margin: 10px 0; }
.msg { margin: 4px 0; }
.role { font-size: 11px; text-transform: uppercase; color: var(--muted); }
.call { border: 1px solid var(--line); border-radius: 4px; padding: 4px 8px; margin: 6px 0; }
.call.err { border-color: #f3b4b4; }
.event.other { border: 1px dashed var(--line); border-radius: 4px; padding: 4px 8px; margin: 6px 0; }
.label { font-size: 11px; color: var(--muted); margin-top: 4px; }
.label.error { color: var(--bad); }
code.tool { font-weight: bold; }
table.rows { font-size: 12px; margin: 2px 0; }
table.rows th, table.rows td { border: 1px solid var(--line); padding: 2px 5px; text-align: left; }
figure { margin: 4px 0; }
figure img { max-width: 100%; max-height: 420px; border: 1px solid var(--line); }
figcaption { font-size: 11px; color: var(--muted); }
figcaption.refused { color: var(--bad); }
`;
