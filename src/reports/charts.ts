import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** One bar or point: which group on the x axis, which series (a run or a published model), the value. */
export interface ChartDatum {
  x: string;
  series: string;
  value: number;
  /** Published numbers are drawn lighter than the user's runs. */
  published?: boolean;
}

export interface ChartOptions {
  xTitle: string;
  yTitle: string;
  /** Order of the x groups (default: first appearance). */
  xOrder?: string[];
}

/**
 * A grouped bar chart (the papers' figures are mostly these): x groups, one bar per series.
 * Vega-Lite is compiled to Vega and rendered to SVG here, so the report needs no script.
 */
export function groupedBarSpec(data: readonly ChartDatum[], opts: ChartOptions): TopLevelSpec {
  const xOrder = opts.xOrder ?? [...new Set(data.map((d) => d.x))];
  const seriesOrder = [...new Set(data.map((d) => d.series))];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    // About 14 px per bar, within what fits beside the legend on a 1200 px page.
    width: Math.max(160, Math.min(760, xOrder.length * (seriesOrder.length * 14 + 16))),
    height: 220,
    data: { values: data.map((d) => ({ ...d, source: d.published ? 'published' : 'this run' })) },
    mark: { type: 'bar', tooltip: false },
    encoding: {
      // Long group names (ShortcutsBench categories) are slanted so they do not overlap.
      x: {
        field: 'x',
        type: 'nominal',
        title: opts.xTitle,
        sort: xOrder,
        axis: { labelAngle: xOrder.some((x) => x.length > 8) ? -30 : 0, labelLimit: 220 },
      },
      xOffset: { field: 'series', type: 'nominal', sort: seriesOrder },
      y: {
        field: 'value',
        type: 'quantitative',
        title: opts.yTitle,
        // Vega labels a zero-width domain "0.000000": give an all-zero chart a unit axis instead.
        ...(data.every((d) => d.value === 0) ? { scale: { domain: [0, 1] } } : {}),
      },
      color: {
        field: 'series',
        type: 'nominal',
        sort: seriesOrder,
        title: null,
        scale: { scheme: 'tableau20' },
      },
      opacity: { condition: { test: "datum.source === 'published'", value: 0.45 }, value: 1 },
    },
    config: { font: 'DejaVu Sans', legend: { labelLimit: 260 } },
  };
}

/**
 * Renders a Vega-Lite spec to an SVG string with Vega's headless renderer. Without the optional
 * `canvas` package Vega estimates text widths from the font size, which is enough for layout.
 */
export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
