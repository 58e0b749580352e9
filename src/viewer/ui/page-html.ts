// The viewer page: static markup; the script fills it from the JSON routes.
// Kept as a string so the package ships it without a build step; no backticks or `${` inside.
export const VIEWER_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Apiary trace viewer</title>
<link rel="stylesheet" href="/viewer.css">
<script src="/viewer.js" defer></script>
</head>
<body>
<header>
  <h1 id="run-title">Apiary trace viewer</h1>
  <div><span id="run-facts" class="muted"></span> <button id="reload" type="button" title="read records appended since">Reload</button></div>
  <div id="run-headline"></div>
  <div id="status" role="status"></div>
</header>
<main>
  <section id="samples">
    <div id="filters">
      <div class="group"><span class="label">Outcome</span><span id="f-outcome" class="buttons"></span></div>
      <div class="group"><span class="label">Error</span><span id="f-error" class="buttons"></span></div>
      <div class="group" id="f-range">
        <span class="label">Range</span>
        <select id="f-metric" aria-label="metric"></select>
        <input id="f-min" type="number" step="any" placeholder="min" aria-label="min">
        <input id="f-max" type="number" step="any" placeholder="max" aria-label="max">
        <button id="apply-range" type="button">Apply</button>
      </div>
      <div class="group" id="f-category-wrap"><span class="label">Category</span><select id="f-category" aria-label="category"></select></div>
      <div class="group"><span class="label">Id</span><input id="f-q" type="search" placeholder="part of an id" aria-label="id"></div>
    </div>
    <table id="list">
      <thead><tr><th>id</th><th>epoch</th><th>category</th><th id="list-metric">score</th><th>pass</th><th>errors</th><th>time</th></tr></thead>
      <tbody id="list-body"></tbody>
    </table>
    <div id="pager"><button id="prev" type="button">Prev</button> <span id="list-range"></span> <button id="next" type="button">Next</button></div>
  </section>
  <section id="detail"></section>
</main>
</body>
</html>
`;
