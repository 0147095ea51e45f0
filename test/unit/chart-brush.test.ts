// A drag across a chart of buckets (src/features/insight/charts/brush.ts): the pointer's x is the bucket under it, the
// nearest one beyond the drawing area; the band runs from the first bucket's left edge to the last one's right, in
// either order of the drag, inside the drawing area.
import { describe, expect, it } from 'vitest';
import { bandOf, bucketAt, type BrushChart } from '@/features/insight/charts/brush';

/** A category axis of `count` buckets, each `step` pixels wide, drawn from x = 40 (Chart.js's offset layout). */
function chartOf(count: number, step = 20): BrushChart {
  const left = 40;
  return {
    data: { labels: Array.from({ length: count }, (_, i) => `b${i}`) },
    chartArea: { left, right: left + count * step },
    scales: {
      x: {
        getPixelForValue: (value) => left + step / 2 + value * step,
        getValueForPixel: (pixel) => (pixel - left - step / 2) / step,
      },
    },
  };
}

describe('a brush across buckets', () => {
  it('takes the bucket under the pointer, and the nearest end beyond the drawing area', () => {
    const chart = chartOf(6);
    expect(bucketAt(chart, 40)).toBe(0);
    expect(bucketAt(chart, 61)).toBe(1);
    expect(bucketAt(chart, 159)).toBe(5);
    expect(bucketAt(chart, -200)).toBe(0);
    expect(bucketAt(chart, 900)).toBe(5);
  });

  it('has no bucket on a chart without any, or without an x axis', () => {
    expect(bucketAt(chartOf(0), 50)).toBeNull();
    expect(bucketAt({ ...chartOf(3), scales: {} }, 50)).toBeNull();
  });

  it('bands the buckets crossed, whichever way the drag went', () => {
    const chart = chartOf(6);
    expect(bandOf(chart, 1, 3)).toEqual({ left: 60, width: 60 });
    expect(bandOf(chart, 3, 1)).toEqual({ left: 60, width: 60 });
    expect(bandOf(chart, 2, 2)).toEqual({ left: 80, width: 20 });
    // The whole chart, not past its edges.
    expect(bandOf(chart, 0, 5)).toEqual({ left: 40, width: 120 });
  });

  it('bands one bucket as the whole area', () => {
    const one = chartOf(1);
    expect(bandOf(one, 0, 0)).toEqual({ left: 40, width: 20 });
  });
});
