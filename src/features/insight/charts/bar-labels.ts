// The category axis of the horizontal bar charts (hashtags, mentions, domains, words, platforms): every bar keeps its
// label — Chart.js's autoSkip drops every other one as soon as a label's line is taller than a bar's share of the
// axis — and a long label is cut with an ellipsis to a width counted in columns: by grapheme (an emoji with its
// modifiers, a letter with its accents is one), Chinese, Japanese and Korean characters and emoji two columns wide, as
// they are drawn. The full text is in the tooltip (its title is the label itself) and in the card's table view. No
// Chart.js import: the pages build their configurations before Chart.js is loaded (chart-js.ts).
import type { ChartOptions, Scale } from 'chart.js';

/** About 170 CSS pixels of the axis's 12 px font: room for the bars beside it on a phone's card. */
export const LABEL_COLUMNS = 24;

const segmenter =
  typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
const graphemes = (text: string): string[] =>
  segmenter ? Array.from(segmenter.segment(text), (part) => part.segment) : Array.from(text);

/** East Asian wide and full-width characters (Unicode's EastAsianWidth W and F, in blocks) and emoji. */
const WIDE =
  /\p{Extended_Pictographic}|\p{Regional_Indicator}|[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1b000}-\u{1b2ff}\u{20000}-\u{3fffd}]/u;

const columns = (grapheme: string) => (WIDE.test(grapheme) ? 2 : 1);

/** `text` as it fits in `max` columns: whole, or cut at a grapheme's end with "…" (one column) after it. */
export function fitLabel(text: string, max = LABEL_COLUMNS): string {
  const parts = graphemes(text);
  let width = 0;
  for (const part of parts) width += columns(part);
  if (width <= max) return text;
  let kept = '';
  width = 0;
  for (const part of parts) {
    const next = width + columns(part);
    if (next > max - 1) break;
    kept += part;
    width = next;
  }
  return `${kept.trimEnd()}…`;
}

/** A horizontal bar chart's options: every label shown, long ones cut (fitLabel), the values' axis from zero. */
export function horizontalBarOptions(): ChartOptions<'bar'> {
  return {
    indexAxis: 'y',
    plugins: { legend: { display: false } },
    scales: {
      x: { beginAtZero: true },
      y: {
        ticks: {
          autoSkip: false,
          callback(this: Scale, value: number | string) {
            return fitLabel(this.getLabelForValue(Number(value)));
          },
        },
      },
    },
  };
}

/** The chart's height for `bars` bars: room for every label's line (22 px each) and the values' axis. */
export const horizontalBarHeight = (bars: number) => Math.max(160, bars * 22 + 40);
