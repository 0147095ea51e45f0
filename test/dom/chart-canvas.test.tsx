// A dashboard's chart is made (Chart.js's layout and first draw) only once its box comes near the viewport: charts
// further down a dashboard cost nothing until the reader scrolls toward them, their box holding the place meanwhile.
import { act, cleanup, render } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChartConfiguration } from 'chart.js';
import { ChartCanvas } from '@/features/insight/charts/ChartCanvas';

/** The page's one IntersectionObserver, driven by the test. */
class FakeIntersectionObserver {
  static last: FakeIntersectionObserver | null = null;
  readonly targets = new Set<Element>();
  constructor(
    private readonly callback: IntersectionObserverCallback,
    readonly options: IntersectionObserverInit = {},
  ) {
    FakeIntersectionObserver.last = this;
  }
  observe(target: Element) {
    this.targets.add(target);
  }
  unobserve(target: Element) {
    this.targets.delete(target);
  }
  disconnect() {
    this.targets.clear();
  }
  /** `target` comes within the observer's margin of the viewport. */
  near(target: Element) {
    this.callback([{ target, isIntersecting: true } as IntersectionObserverEntry], this as never);
  }
}

const CONFIG: ChartConfiguration = { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } };
/** Chart-making runs one chart per task (a MessageChannel turn): a few turns later, it has run. */
const turns = () => act(() => new Promise((resolve) => setTimeout(resolve, 20)));

beforeAll(() => {
  vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
  // jsdom draws nothing: a chart being made asks for a 2D context, finds none, and says the chart is unavailable.
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
});
afterAll(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});
afterEach(cleanup);

describe('a chart', () => {
  it('is made only when its box comes near the viewport, which it waits for marked data-offscreen', async () => {
    const unavailable = vi.fn();
    const { container } = render(<ChartCanvas config={CONFIG} summary="A" onUnavailable={unavailable} />);
    const box = container.querySelector('.chart-canvas')!;
    await turns();
    expect(unavailable).not.toHaveBeenCalled();
    expect(box.hasAttribute('data-offscreen')).toBe(true);
    const observer = FakeIntersectionObserver.last!;
    expect(observer.targets.has(box)).toBe(true);
    expect(observer.options.rootMargin).toBe('400px');
    // Its box keeps the chart's height meanwhile: nothing moves when it is drawn.
    expect((box as HTMLElement).style.height).toBe('240px');

    observer.near(box);
    await turns();
    expect(unavailable).toHaveBeenCalledTimes(1);
    expect(box.hasAttribute('data-offscreen')).toBe(false);
    expect(observer.targets.has(box)).toBe(false);
  });

  it('unmounted before it came near, stops waiting and is never made', async () => {
    const unavailable = vi.fn();
    const { container, unmount } = render(
      <ChartCanvas config={CONFIG} summary="B" onUnavailable={unavailable} />,
    );
    const box = container.querySelector('.chart-canvas')!;
    const observer = FakeIntersectionObserver.last!;
    expect(observer.targets.has(box)).toBe(true);
    unmount();
    expect(observer.targets.has(box)).toBe(false);
    observer.near(box);
    await turns();
    expect(unavailable).not.toHaveBeenCalled();
  });
});
