// A brush across a chart of buckets: a drag with a mouse or a pen over the chart selects the consecutive buckets it
// crosses (the x axis's categories). What the pointer's position means on the chart's x axis, and the band drawn over
// the buckets selected so far; ChartCanvas handles the pointer. A keyboard's way to the same selection is the page's
// own (SpikeDrivers' "Explain from … to …"); touch keeps scrolling the page.

/** What the brush needs of a drawn chart: its x scale and its drawing area (Chart.js's, in CSS pixels). */
export interface BrushChart {
  scales: Record<
    string,
    | { getValueForPixel: (pixel: number) => number | undefined; getPixelForValue: (value: number) => number }
    | undefined
  >;
  chartArea: { left: number; right: number } | undefined;
  data: { labels?: unknown[] };
}

/** Pixels a pointer moves, pressed, before it is a drag and not a click (a click opens a bucket's posts). */
export const DRAG_THRESHOLD_PX = 4;

const bucketCount = (chart: BrushChart) => chart.data.labels?.length ?? 0;

/** The bucket under `x` (pixels from the canvas's left), the nearest one when outside the drawing area. */
export function bucketAt(chart: BrushChart, x: number): number | null {
  const scale = chart.scales.x;
  const count = bucketCount(chart);
  if (!scale || !count) return null;
  const value = scale.getValueForPixel(x);
  if (value === undefined || Number.isNaN(value)) return null;
  return Math.min(count - 1, Math.max(0, Math.round(value)));
}

/** The band over buckets `a` to `b` (either order): from the first's left edge to the last's right, in the area. */
export function bandOf(chart: BrushChart, a: number, b: number): { left: number; width: number } | null {
  const scale = chart.scales.x;
  const area = chart.chartArea;
  const count = bucketCount(chart);
  if (!scale || !area || !count) return null;
  const [first, last] = a <= b ? [a, b] : [b, a];
  const step =
    count > 1 ? Math.abs(scale.getPixelForValue(1) - scale.getPixelForValue(0)) : area.right - area.left;
  const left = Math.max(area.left, scale.getPixelForValue(first) - step / 2);
  const right = Math.min(area.right, scale.getPixelForValue(last) + step / 2);
  return right > left ? { left, width: right - left } : null;
}
