// Best time to post: a day × hour heatmap in the workspace's zone, darker where posts drew more engagement on average.
// It is a real table (days as rows, hours as columns), so it reads as one and each cell is a button that opens the
// posts of that hour of the week; the PNG is drawn from the same numbers, under the title, query, range and zone.
import { useId } from 'react';
import type { Refine } from '@contract/insights';
import type { PerformanceResponse } from '@contract/insights-responses';
import { Counted } from './ChartCard';
import { exportName, saveCsv, type CsvMeta } from './csv';
import { saveFile } from '@/lib/save-file';
import { chartPng, pngHeader } from './charts/chart-png';
import { DAY_NAMES, formatDecimal, formatWhole } from './insight-format';
import { useInsightView } from './insight-view';

type Cell = PerformanceResponse['best_time'][number];
const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
const hourLabel = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

/** The drill-down of a cell: posts of that weekday and hour in the workspace's zone. */
const hourOfWeek = (cell: Cell): Refine => ({
  field: 'hour_of_week',
  values: [{ day: cell.day, hour: cell.hour }],
});

/** 0 (no posts) to 1 (the best cell): the share of the best average engagement. */
function intensities(cells: readonly Cell[]): Map<string, number> {
  const best = Math.max(0, ...cells.map((cell) => cell.average_engagement ?? 0));
  return new Map(
    cells.map((cell) => [`${cell.day}-${cell.hour}`, best > 0 ? (cell.average_engagement ?? 0) / best : 0]),
  );
}
const shade = (intensity: number, posts: number) =>
  posts === 0 ? '#f3f2f8' : `rgba(67, 56, 202, ${(0.12 + 0.88 * intensity).toFixed(3)})`;

export function BestTime({ data, meta }: { data: PerformanceResponse; meta: Omit<CsvMeta, 'title'> }) {
  const { drill } = useInsightView();
  const id = useId();
  const cells = new Map(data.best_time.map((cell) => [`${cell.day}-${cell.hour}`, cell]));
  const level = intensities(data.best_time);
  const best = [...data.best_time]
    .filter((cell) => cell.posts > 0)
    .sort((a, b) => (b.average_engagement ?? 0) - (a.average_engagement ?? 0))[0];

  const exportCsv = () =>
    saveCsv(
      exportName('performance', 'best time to post', 'csv'),
      { ...meta, title: 'performance – best time to post' },
      [
        { label: 'Day', value: (cell: Cell) => DAY_NAMES[cell.day - 1] ?? cell.day },
        { label: 'Hour', value: (cell: Cell) => hourLabel(cell.hour) },
        { label: 'Posts', value: (cell: Cell) => cell.posts },
        { label: 'Engagement per post', value: (cell: Cell) => cell.average_engagement },
      ],
      data.best_time,
    );

  return (
    <section className="chart-card wide" aria-labelledby={`${id}-title`}>
      <header className="chart-card-header">
        <h2 id={`${id}-title`}>Best time to post</h2>
        <div className="chart-card-actions">
          <button
            type="button"
            className="button small"
            onClick={exportCsv}
            aria-label="Download best time to post as CSV"
          >
            CSV
          </button>
          <button
            type="button"
            className="button small"
            onClick={() =>
              saveFile(
                exportName('performance', 'best time to post', 'png'),
                chartPng(heatmapCanvas(data, level), pngHeader('performance', 'Best time to post', meta)),
              )
            }
            aria-label="Download best time to post as PNG"
          >
            PNG
          </button>
        </div>
      </header>
      <p className="small muted">
        Average engagement per post by weekday and hour, {data.time_zone}.
        {best ? ` Best: ${DAY_NAMES[best.day - 1]} ${hourLabel(best.hour)}.` : ''} Select a cell for its
        posts.
      </p>
      <div className="table-scroll">
        <table className="heatmap">
          <caption className="visually-hidden">Average engagement per post by weekday and hour</caption>
          <thead>
            <tr>
              <td />
              {HOURS.map((hour) => (
                <th key={hour} scope="col">
                  {hour % 3 === 0 ? (
                    String(hour).padStart(2, '0')
                  ) : (
                    <span className="visually-hidden">{hour}</span>
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {DAY_NAMES.map((day, index) => (
              <tr key={day}>
                <th scope="row">{day.slice(0, 3)}</th>
                {HOURS.map((hour) => {
                  const cell = cells.get(`${index + 1}-${hour}`) ?? {
                    day: index + 1,
                    hour,
                    posts: 0,
                    average_engagement: null,
                  };
                  const label = `${day} ${hourLabel(hour)}: ${formatWhole(cell.posts)} posts${
                    cell.posts ? `, ${formatDecimal(cell.average_engagement)} engagement per post` : ''
                  }`;
                  return (
                    <td key={hour}>
                      <button
                        type="button"
                        className="heatmap-cell"
                        style={{ backgroundColor: shade(level.get(`${index + 1}-${hour}`) ?? 0, cell.posts) }}
                        aria-label={label}
                        title={label}
                        disabled={cell.posts === 0}
                        onClick={() => drill([hourOfWeek(cell)])}
                      />
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Counted sentence={data.counted} />
    </section>
  );
}

/**
 * The heatmap drawn on a canvas for the PNG: the same cells and shades, with day and hour labels (the title, query,
 * range and zone go above it, as above every chart's PNG).
 */
function heatmapCanvas(data: PerformanceResponse, level: Map<string, number>): HTMLCanvasElement {
  const size = 24;
  const left = 48;
  const top = 24;
  const canvas = document.createElement('canvas');
  canvas.width = left + 24 * size + 16;
  canvas.height = top + 7 * size + 8;
  const context = canvas.getContext('2d');
  if (!context) return canvas;
  context.fillStyle = '#1c1b29';
  context.font = '11px system-ui, sans-serif';
  for (const hour of HOURS) {
    if (hour % 3 === 0) context.fillText(String(hour).padStart(2, '0'), left + hour * size + 4, top - 6);
  }
  const posts = new Map(data.best_time.map((cell) => [`${cell.day}-${cell.hour}`, cell.posts]));
  DAY_NAMES.forEach((day, index) => {
    context.fillStyle = '#1c1b29';
    context.fillText(day.slice(0, 3), 8, top + index * size + 16);
    for (const hour of HOURS) {
      const key = `${index + 1}-${hour}`;
      context.fillStyle = shade(level.get(key) ?? 0, posts.get(key) ?? 0);
      context.fillRect(left + hour * size + 1, top + index * size + 1, size - 2, size - 2);
    }
  });
  return canvas;
}
