// When the charts of a page are made: a chart waits until its box comes near the viewport, then is made in a task of
// its own (ChartCanvas). Printing (or saving as PDF, or a capture in print media) is the exception: every chart is
// made at once, as the printed page shows them all and the browser lays it out right after `beforeprint`.

/**
 * How near the viewport (in CSS pixels, below, above and beside it) a chart's box must come to be drawn: the charts a
 * page opens with are drawn at once, those further down when the reader scrolls toward them — far enough ahead that
 * one is drawn (tens of milliseconds) before it comes into view. Until then its box, of the chart's height, holds the
 * place, so nothing moves when it is drawn.
 */
const NEAR_MARGIN_PX = 400;
/** The attribute a chart's box carries while it waits to come near the viewport (tests and benches read it). */
const WAITING_ATTRIBUTE = 'data-offscreen';

/** `near(printing)`: printing is true when the page is about to be printed and the chart must be drawn at once. */
type Near = (printing: boolean) => void;

const waiting = new Map<Element, Near>();
let observer: IntersectionObserver | null = null;

function stopWaiting(target: Element) {
  waiting.delete(target);
  observer?.unobserve(target);
  target.removeAttribute(WAITING_ATTRIBUTE);
}

/**
 * Calls `near` once `box` is within NEAR_MARGIN_PX of the viewport (at once where IntersectionObserver is missing), or
 * before the page is printed; the returned function stops waiting. One observer for every chart of the page.
 */
export function whenNear(box: Element, near: Near): () => void {
  if (typeof IntersectionObserver !== 'function') {
    near(false);
    return () => {};
  }
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        const callback = waiting.get(entry.target);
        stopWaiting(entry.target);
        callback?.(false);
      }
    },
    { rootMargin: `${NEAR_MARGIN_PX}px` },
  );
  waiting.set(box, near);
  box.setAttribute(WAITING_ATTRIBUTE, '');
  observer.observe(box);
  return () => stopWaiting(box);
}

/**
 * Charts are made one per task, in the order they mounted: a dashboard's half-dozen charts mounting together would
 * otherwise be made in one long task (every chart's layout and first draw), holding up input and the next frame;
 * between two charts the browser can paint and answer a click. A MessageChannel turn, not setTimeout: no 4 ms clamp.
 */
const pending: Array<() => void> = [];
let channel: MessageChannel | null = null;

export function drawSoon(job: () => void): () => void {
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

/** Per chart not drawn yet, what stands in for it in print when it cannot be drawn in time (its card's table). */
const printFallbacks = new Set<() => void>();

/** Registers `fallback` until the returned function is called (the chart was drawn, or is gone). */
export function untilDrawn(fallback: () => void): () => void {
  printFallbacks.add(fallback);
  return () => printFallbacks.delete(fallback);
}

/**
 * Every waiting chart is made now, and those queued are drawn in this very task: the browser lays the printed page
 * out as soon as the `beforeprint` listeners return. A chart whose code (Chart.js's chunk) is not loaded yet cannot be
 * drawn in this task, and `beforeprint` cannot wait for it (printing from the browser's menu): its fallback puts the
 * same rows in its place, as a table, in this task. The chart is still drawn once the code is there — in time for a
 * capture in print media; Ctrl+P waits for it (below).
 */
function drawEveryChart() {
  for (const [box, near] of [...waiting]) {
    stopWaiting(box);
    near(true);
  }
  while (pending.length) pending.shift()!();
  for (const fallback of [...printFallbacks]) fallback();
}

/** How the charts' code is loaded (ChartCanvas): whether it is, and loading it. */
export interface ChartCode {
  loaded: () => boolean;
  load: () => Promise<unknown>;
}

let listening = false;

/**
 * Draws every chart before the page is printed (`beforeprint`) or shown in print media (a capture, DevTools, a
 * headless browser's PDF). Ctrl+P / Cmd+P pressed while a chart waits for code not loaded yet, which `beforeprint`
 * cannot wait for, prints once it is loaded and every chart drawn (if it cannot be loaded, the cards print as they
 * are). Installed once, by the first chart.
 */
export function drawForPrint(code: ChartCode): void {
  if (listening || typeof window === 'undefined') return;
  listening = true;
  window.addEventListener('beforeprint', drawEveryChart);
  if (typeof matchMedia === 'function') {
    matchMedia('print').addEventListener?.('change', (event) => {
      if (event.matches) drawEveryChart();
    });
  }
  window.addEventListener('keydown', (event) => {
    const print = (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'p';
    if (!print || code.loaded() || (!waiting.size && !pending.length)) return;
    event.preventDefault();
    const printNow = () => {
      drawEveryChart();
      window.print();
    };
    code.load().then(printNow, printNow);
  });
}
