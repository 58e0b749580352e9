/** HTML building blocks for the self-contained report: escaping, tables, the page shell. */

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A cell: text, or text with a CSS class (`published` rows, `changed` values). */
export type Cell = string | number | { text: string; className?: string };

export interface HtmlTable {
  caption: string;
  columns: string[];
  rows: Cell[][];
  /** Indices of rows to mark as published numbers (styled apart from the user's runs). */
  publishedRows?: number[];
}

const cellText = (c: Cell) => (typeof c === 'object' ? c.text : String(c));

function renderTable(t: HtmlTable): string {
  const published = new Set(t.publishedRows ?? []);
  const head = t.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const body = t.rows
    .map((row, i) => {
      const cells = row
        .map((c) => {
          const cls = typeof c === 'object' && c.className ? ` class="${c.className}"` : '';
          return `<td${cls}>${escapeHtml(cellText(c))}</td>`;
        })
        .join('');
      return `<tr${published.has(i) ? ' class="published"' : ''}>${cells}</tr>`;
    })
    .join('\n');
  // Wide tables (many runs, long folder paths) scroll inside their own box, not past the page.
  return `<div class="table-scroll"><table>\n<caption>${escapeHtml(t.caption)}</caption>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table></div>`;
}

/** One block of a section: a table, a chart (inline SVG), a warning or a paragraph. */
export type Block =
  | { kind: 'table'; table: HtmlTable }
  | { kind: 'chart'; title: string; svg: string }
  | { kind: 'warning'; text: string }
  | { kind: 'note'; text: string };

export interface ReportSection {
  id: string;
  title: string;
  blocks: Block[];
}

function renderBlock(b: Block): string {
  switch (b.kind) {
    case 'table':
      return renderTable(b.table);
    case 'chart':
      return `<figure class="chart"><figcaption>${escapeHtml(b.title)}</figcaption>\n${b.svg}\n</figure>`;
    case 'warning':
      return `<p class="warning" role="alert">⚠ ${escapeHtml(b.text)}</p>`;
    case 'note':
      return `<p class="note">${escapeHtml(b.text)}</p>`;
  }
}

const STYLE = `
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 24px; color: #222; max-width: 1150px; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 32px; }
div.table-scroll { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; margin: 12px 0; font-size: 13px; }
caption { text-align: left; font-weight: bold; padding: 4px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; overflow-wrap: anywhere; max-width: 360px; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #f3f3f3; }
tr.published td { color: #555; background: #fafaf3; font-style: italic; }
td.changed { background: #fff0e0; }
p.warning { background: #fff4e5; border-left: 4px solid #e69500; padding: 8px 12px; }
p.note { color: #555; font-size: 13px; }
figure.chart { margin: 12px 0; overflow-x: auto; } figure.chart figcaption { font-weight: bold; font-size: 13px; }
nav a { margin-right: 12px; }
`;

/** The whole page: inline CSS and SVG only, no scripts and no external resources. */
export function renderPage(title: string, intro: string[], sections: readonly ReportSection[]): string {
  const nav = sections.map((s) => `<a href="#${s.id}">${escapeHtml(s.title)}</a>`).join('');
  const body = sections
    .map(
      (s) =>
        `<section id="${s.id}">\n<h2>${escapeHtml(s.title)}</h2>\n${s.blocks.map(renderBlock).join('\n')}\n</section>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${intro.map((p) => `<p class="note">${escapeHtml(p)}</p>`).join('\n')}
<nav>${nav}</nav>
${body}
</body>
</html>
`;
}
