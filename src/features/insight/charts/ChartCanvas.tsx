// One Chart.js chart on a canvas: made when mounted, updated in place when its configuration changes, destroyed when
// unmounted. Clicking (or tapping) an element reports its index and dataset; given onBrush, a drag across it with a
// mouse or a pen reports the buckets it crossed (brush.ts); the handle gives the chart as a PNG.
// The canvas is an image with a summary for screen readers; the card's table view is the accessible alternative and
// the keyboard's way to every drill-down (ChartCard).
import {
  forwardRef,
  useEffect,
  useImperativeHandle,
  useMemo,
  useRef,
  useState,
  type PointerEvent,
} from 'react';
import type { Chart, ChartConfiguration, Plugin } from 'chart.js';
import { chartPng, type PngHeader } from './chart-png';
import { bandOf, bucketAt, DRAG_THRESHOLD_PX, type BrushChart } from './brush';
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
    /** A drag across the chart (mouse or pen) selected the buckets `first` to `last` (indexes, in order). */
    onBrush?: (first: number, last: number) => void;
    /** The browser cannot draw it (no 2D canvas: blocked by a privacy setting, or no canvas at all). */
    onUnavailable?: () => void;
    /**
     * The page is being printed and the chart cannot be drawn before it is laid out (Chart.js not loaded yet): what
     * stands in its place must be rendered before this returns.
     */
    onPrintUndrawn?: () => void;
  }
>(function ChartCanvas(
  { config, summary, height = 240, onPick, onBrush, onUnavailable, onPrintUndrawn },
  ref,
) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  const pick = useRef(onPick);
  pick.current = onPick;
  const brush = useRef(onBrush);
  brush.current = onBrush;
  // A drag in progress: the bucket it started on, where, and whether it has moved far enough to be one.
  const drag = useRef<{ start: number; x: number; moved: boolean } | null>(null);
  // The click that ends a drag is not a click on a bucket (Chart.js reports it to onClick after pointerup).
  const swallowClick = useRef(false);
  const [band, setBand] = useState<{ left: number; width: number } | null>(null);
  const handlers = useMemo(() => ({ pick, brush, swallowClick }), []);
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
        const first = withInteraction(configRef.current, handlers);
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
    const next = withInteraction(config, handlers);
    current.data = next.data;
    current.options = next.options ?? {};
    current.update();
  }, [config, handlers]);

  useImperativeHandle(ref, () => ({
    png: (header) => (chart.current ? chartPng(chart.current.canvas, header) : null),
  }));

  const brushChart = () => chart.current as unknown as BrushChart | null;
  const brushing = (event: PointerEvent<HTMLCanvasElement>) => {
    const current = brushChart();
    const at = drag.current;
    if (!current || !at) return null;
    const index = bucketAt(current, event.nativeEvent.offsetX);
    return index === null ? null : { current, at, index };
  };
  const pointer = onBrush && {
    onPointerDown: (event: PointerEvent<HTMLCanvasElement>) => {
      swallowClick.current = false;
      const current = brushChart();
      if (event.button !== 0 || event.pointerType === 'touch' || !current) return;
      const start = bucketAt(current, event.nativeEvent.offsetX);
      if (start === null) return;
      drag.current = { start, x: event.clientX, moved: false };
      event.currentTarget.setPointerCapture?.(event.pointerId);
    },
    onPointerMove: (event: PointerEvent<HTMLCanvasElement>) => {
      const now = brushing(event);
      if (!now) return;
      if (Math.abs(event.clientX - now.at.x) >= DRAG_THRESHOLD_PX) now.at.moved = true;
      if (now.at.moved) setBand(bandOf(now.current, now.at.start, now.index));
    },
    onPointerUp: (event: PointerEvent<HTMLCanvasElement>) => {
      const now = brushing(event);
      drag.current = null;
      setBand(null);
      if (!now?.at.moved) return;
      swallowClick.current = true;
      brush.current?.(Math.min(now.at.start, now.index), Math.max(now.at.start, now.index));
    },
    onPointerCancel: () => {
      drag.current = null;
      setBand(null);
    },
  };

  return (
    <div className="chart-canvas" style={{ height }}>
      <canvas ref={canvas} role="img" aria-label={summary} {...pointer} />
      {band && (
        <div className="chart-brush" aria-hidden="true" style={{ left: band.left, width: band.width }} />
      )}
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

interface Interaction {
  pick: { current: ((picked: PickedElement) => void) | undefined };
  brush: { current: ((first: number, last: number) => void) | undefined };
  swallowClick: { current: boolean };
}

function withInteraction(
  config: ChartConfiguration,
  { pick, brush, swallowClick }: Interaction,
): ChartConfiguration {
  return {
    ...config,
    plugins: [...(config.plugins ?? []), drawnMarker],
    options: {
      responsive: true,
      maintainAspectRatio: false,
      ...config.options,
      onClick: (_event, elements) => {
        if (swallowClick.current) {
          swallowClick.current = false;
          return;
        }
        const first = elements[0];
        if (first) pick.current?.({ index: first.index, datasetIndex: first.datasetIndex });
      },
      onHover: (event, elements) => {
        const target = event.native?.target as HTMLElement | undefined;
        if (target)
          target.style.cursor =
            elements.length && pick.current ? 'pointer' : brush.current ? 'crosshair' : 'default';
      },
    },
  } as ChartConfiguration;
}
