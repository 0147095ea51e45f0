// One Chart.js chart on a canvas: made when mounted, updated in place when its configuration changes, destroyed when
// unmounted. Clicking (or tapping) an element reports its index and dataset; the handle gives the chart as a PNG.
// The canvas is an image with a summary for screen readers; the card's table view is the accessible alternative and
// the keyboard's way to every drill-down (ChartCard).
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import type { Chart, ChartConfiguration, Plugin } from 'chart.js';
import { chartPng, type PngHeader } from './chart-png';
import { drawForPrint, drawSoon, untilDrawn, whenNear } from './draw-schedule';

/**
 * Chart.js, loaded (and registered) when the first chart of a page is about to be drawn, once for the app: it is not
 * part of a dashboard's start, where on a phone no chart is in view (chart-js.ts).
 */
let chartJs: Promise<typeof import('./chart-js')> | null = null;
/** Chart.js once loaded: a chart can then be made in the same task (before printing). */
let loadedChartJs: typeof import('./chart-js') | null = null;
const loadChartJs = () => (chartJs ??= import('./chart-js').then((loaded) => (loadedChartJs = loaded)));
const chartCode = { loaded: () => loadedChartJs !== null, load: loadChartJs };

export interface ChartHandle {
  /** The chart as drawn under `header`, as a PNG data URL on a white background (null before it is drawn). */
  png: (header: PngHeader) => string | null;
}

export interface PickedElement {
  index: number;
  datasetIndex: number;
}

export const ChartCanvas = forwardRef<
  ChartHandle,
  {
    config: ChartConfiguration;
    summary: string;
    height?: number;
    onPick?: (picked: PickedElement) => void;
    /** The browser cannot draw it (no 2D canvas: blocked by a privacy setting, or no canvas at all). */
    onUnavailable?: () => void;
    /**
     * The page is being printed and the chart cannot be drawn before it is laid out (Chart.js not loaded yet): what
     * stands in its place must be rendered before this returns.
     */
    onPrintUndrawn?: () => void;
  }
>(function ChartCanvas({ config, summary, height = 240, onPick, onUnavailable, onPrintUndrawn }, ref) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  const pick = useRef(onPick);
  pick.current = onPick;
  const printUndrawn = useRef(onPrintUndrawn);
  printUndrawn.current = onPrintUndrawn;
  // The configuration when the chart is finally made (a turn or more after mounting).
  const configRef = useRef(config);
  configRef.current = config;

  useEffect(() => {
    const element = canvas.current;
    if (!element) return;
    let made: Chart | null = null;
    let unmounted = false;
    let cancelDraw = () => {};
    let ChartJs: typeof Chart | null = null;
    drawForPrint(chartCode);
    const drawn = untilDrawn(() => printUndrawn.current?.());
    const stopWaiting = whenNear(element.parentElement ?? element, (printing) => {
      // Before printing, made in this very task if Chart.js is there (the printed page is laid out right after).
      if (printing && loadedChartJs) {
        ChartJs = loadedChartJs.Chart;
        draw();
        return;
      }
      loadChartJs().then(
        (loaded) => {
          if (unmounted) return;
          ChartJs = loaded.Chart;
          cancelDraw = drawSoon(draw);
        },
        // The chunk could not be loaded (the network, or a deployment replaced it): the card shows its table.
        () => {
          chartJs = null;
          if (!unmounted) onUnavailable?.();
        },
      );
    });
    function draw() {
      if (!element || !ChartJs) return;
      try {
        if (!element.getContext('2d')) throw new Error('No 2D canvas');
        // The first drawing is the final one at once: Chart.js's entrance animation would redraw every chart of the
        // dashboard on each frame for a second, main-thread work while the page has only just arrived. Later changes
        // (another scope, range or refinement) still animate from the drawing before.
        const first = withInteraction(configRef.current, pick);
        made = new ChartJs(element, {
          ...first,
          options: { ...first.options, animation: false },
        } as ChartConfiguration);
      } catch {
        onUnavailable?.();
        return;
      }
      chart.current = made;
      drawn();
    }
    return () => {
      unmounted = true;
      drawn();
      stopWaiting();
      cancelDraw();
      made?.destroy();
      chart.current = null;
    };
    // The chart is made once; later configurations are applied by the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  useEffect(() => {
    const current = chart.current;
    if (!current) return;
    const next = withInteraction(config, pick);
    current.data = next.data;
    current.options = next.options ?? {};
    current.update();
  }, [config]);

  useImperativeHandle(ref, () => ({
    png: (header) => (chart.current ? chartPng(chart.current.canvas, header) : null),
  }));

  return (
    <div className="chart-canvas" style={{ height }}>
      <canvas ref={canvas} role="img" aria-label={summary} />
    </div>
  );
});

/**
 * Marks the chart's box once a frame is on screen (`data-drawn`), for tests and the dashboards' timing bench: after its
 * first draw (afterDraw, which a chart of no size never reaches); afterRender would wait for the end of the animation,
 * a second later.
 */
const drawnMarker: Plugin = {
  id: 'murmur-drawn',
  afterDraw: (chart) => {
    const box = chart.canvas.parentElement;
    if (box && !box.hasAttribute('data-drawn')) box.setAttribute('data-drawn', 'true');
  },
};

function withInteraction(
  config: ChartConfiguration,
  pick: { current: ((picked: PickedElement) => void) | undefined },
): ChartConfiguration {
  return {
    ...config,
    plugins: [...(config.plugins ?? []), drawnMarker],
    options: {
      responsive: true,
      maintainAspectRatio: false,
      ...config.options,
      onClick: (_event, elements) => {
        const first = elements[0];
        if (first) pick.current?.({ index: first.index, datasetIndex: first.datasetIndex });
      },
      onHover: (event, elements) => {
        const target = event.native?.target as HTMLElement | undefined;
        if (target) target.style.cursor = elements.length && pick.current ? 'pointer' : 'default';
      },
    },
  } as ChartConfiguration;
}
