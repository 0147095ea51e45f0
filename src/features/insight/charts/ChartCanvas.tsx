// One Chart.js chart on a canvas: made when mounted, updated in place when its configuration changes, destroyed when
// unmounted. Clicking (or tapping) an element reports its index and dataset; the handle gives the chart as a PNG.
// The canvas is an image with a summary for screen readers; the card's table view is the accessible alternative and
// the keyboard's way to every drill-down (ChartCard).
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import type { Chart, ChartConfiguration, Plugin } from 'chart.js';

/**
 * Chart.js, loaded (and registered) when the first chart of a page is about to be drawn, once for the app: it is not
 * part of a dashboard's start, where on a phone no chart is in view (chart-js.ts).
 */
let chartJs: Promise<typeof import('./chart-js')> | null = null;
const loadChartJs = () => (chartJs ??= import('./chart-js'));

export interface ChartHandle {
  /**
   * The chart as drawn, as a PNG data URL on a white background with the caption's lines under it (what it shows,
   * the range and the zone: a file read on its own says them); null before it is drawn.
   */
  png: (caption?: readonly string[]) => string | null;
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
  }
>(function ChartCanvas({ config, summary, height = 240, onPick, onUnavailable }, ref) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  const pick = useRef(onPick);
  pick.current = onPick;
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
    const stopWaiting = whenNear(element.parentElement ?? element, () => {
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
    }
    return () => {
      unmounted = true;
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
    png: (caption = []) => (chart.current ? pngOnWhite(chart.current.canvas, caption) : null),
  }));

  return (
    <div className="chart-canvas" style={{ height }}>
      <canvas ref={canvas} role="img" aria-label={summary} />
    </div>
  );
});

/**
 * How near the viewport (in CSS pixels, below, above and beside it) a chart's box must come to be drawn: the charts a
 * page opens with are drawn at once, those further down when the reader scrolls toward them — far enough ahead that
 * one is drawn (tens of milliseconds) before it comes into view. Until then its box, of the chart's height, holds the
 * place, so nothing moves when it is drawn.
 */
const NEAR_MARGIN_PX = 400;
/** The attribute a chart's box carries while it waits to come near the viewport (tests and benches read it). */
const WAITING_ATTRIBUTE = 'data-offscreen';

const waiting = new Map<Element, () => void>();
let observer: IntersectionObserver | null = null;

/**
 * Calls `near` once `box` is within NEAR_MARGIN_PX of the viewport (at once where IntersectionObserver is missing);
 * the returned function stops waiting. One observer for every chart of the page.
 */
function whenNear(box: Element, near: () => void): () => void {
  if (typeof IntersectionObserver !== 'function') {
    near();
    return () => {};
  }
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        const callback = waiting.get(entry.target);
        stop(entry.target);
        callback?.();
      }
    },
    { rootMargin: `${NEAR_MARGIN_PX}px` },
  );
  const stop = (target: Element) => {
    waiting.delete(target);
    observer?.unobserve(target);
    target.removeAttribute(WAITING_ATTRIBUTE);
  };
  waiting.set(box, near);
  box.setAttribute(WAITING_ATTRIBUTE, '');
  observer.observe(box);
  return () => stop(box);
}

/**
 * Charts are made one per task, in the order they mounted: a dashboard's half-dozen charts mounting together would
 * otherwise be made in one long task (every chart's layout and first draw), holding up input and the next frame;
 * between two charts the browser can paint and answer a click. A MessageChannel turn, not setTimeout: no 4 ms clamp.
 */
const pending: Array<() => void> = [];
let channel: MessageChannel | null = null;

function drawSoon(job: () => void): () => void {
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => {
      pending.shift()?.();
      if (pending.length) channel?.port2.postMessage(null);
    };
  }
  pending.push(job);
  if (pending.length === 1) channel.port2.postMessage(null);
  return () => {
    const at = pending.indexOf(job);
    if (at >= 0) pending.splice(at, 1);
  };
}

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

/** The canvas is transparent: a PNG of it alone would show black or checkered behind the lines in many viewers. */
function pngOnWhite(source: HTMLCanvasElement, caption: readonly string[]): string {
  // The canvas is in device pixels: the caption is scaled as the chart's own text is.
  const scale = source.width / (source.clientWidth || source.width);
  const line = Math.round(16 * scale);
  const band = caption.length ? caption.length * line + Math.round(12 * scale) : 0;
  const copy = document.createElement('canvas');
  copy.width = source.width;
  copy.height = source.height + band;
  const context = copy.getContext('2d');
  if (!context) return source.toDataURL('image/png');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, copy.width, copy.height);
  context.drawImage(source, 0, 0);
  context.fillStyle = '#5d5b73';
  context.font = `${Math.round(12 * scale)}px system-ui, sans-serif`;
  caption.forEach((text, index) => {
    context.fillText(
      text,
      Math.round(8 * scale),
      source.height + (index + 1) * line,
      copy.width - 16 * scale,
    );
  });
  return copy.toDataURL('image/png');
}
