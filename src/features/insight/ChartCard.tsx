// A dashboard card: a title, the chart (or, at the reader's choice, the same data as a table — the accessible
// alternative, and the keyboard's way to every drill-down), the server's "counted" sentence, and exports of exactly
// what is shown: CSV of the rows (with zone and range stated in the file) and PNG of the chart (under a header with its
// title, query, range and zone).
import { useReadOnly, useReport } from './read-only';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
import type { ChartConfiguration } from 'chart.js';
import { ChartCanvas, type ChartHandle } from './charts/ChartCanvas';
import { exportName, saveCsv, type CsvColumn, type CsvMeta } from './csv';
import { saveFile } from '@/lib/save-file';
import { pngHeader } from './charts/chart-png';

export interface TableColumn<R> extends CsvColumn<R> {
  /** How the cell reads on screen (the CSV keeps the raw value). */
  show?: (row: R) => ReactNode;
  numeric?: boolean;
  /** In the CSV only (the screen shows it inside another column). */
  csvOnly?: boolean;
}

export interface Drill<R> {
  /** Opens the posts behind a row; null for a row without any (an empty bucket). */
  open: (row: R, datasetIndex?: number) => void;
  /** The row's button text for the keyboard and screen readers: "Posts of Mon 3 Nov". */
  label: (row: R) => string;
  enabled?: (row: R) => boolean;
  /**
   * A chart of several series (one per compared query): the table offers one button per series, each opening that
   * series' posts of the row (`open` gets its index as the chart's dataset index).
   */
  series?: readonly string[];
}

export function ChartCard<R>({
  title,
  dashboard,
  meta,
  rows,
  columns,
  chart,
  drill: drillProp,
  empty = 'Nothing in this range.',
  footer,
  wide = false,
  bare = false,
}: {
  title: string;
  dashboard: string;
  meta: Omit<CsvMeta, 'title'>;
  rows: readonly R[];
  columns: ReadonlyArray<TableColumn<R>>;
  /**
   * Without a chart the card is its table. `onBrush`: a drag across the chart (mouse or pen) selected the rows `first`
   * to `last` (a range of buckets); the keyboard's way to the same is the page's own.
   */
  chart?: {
    config: ChartConfiguration;
    summary: string;
    height?: number;
    onBrush?: (first: R, last: R) => void;
  };
  drill?: Drill<R>;
  empty?: string;
  footer?: ReactNode;
  wide?: boolean;
  /** Inside another card: no heading or sentence of its own, only the export. */
  bare?: boolean;
}) {
  // Read-only (a shared view): the same card, without its drill-downs; as a report, its chart and its table.
  const drill = useReadOnly() ? undefined : drillProp;
  const report = useReport();
  const id = useId();
  const [view, setView] = useState<'chart' | 'table'>('chart');
  // Where no chart can be drawn, the table (the same rows) is the view.
  const [drawable, setDrawable] = useState(true);
  const canvas = useRef<ChartHandle>(null);
  // Printed before its chart could be drawn: the table stands in for it on paper, until printing ends.
  const [printedAsTable, setPrintedAsTable] = useState(false);
  useEffect(() => {
    if (!printedAsTable) return;
    const done = () => setPrintedAsTable(false);
    const media = typeof matchMedia === 'function' ? matchMedia('print') : null;
    const mediaChanged = (event: MediaQueryListEvent) => !event.matches && done();
    window.addEventListener('afterprint', done);
    media?.addEventListener?.('change', mediaChanged);
    return () => {
      window.removeEventListener('afterprint', done);
      media?.removeEventListener?.('change', mediaChanged);
    };
  }, [printedAsTable]);
  const showTable = !chart || view === 'table' || !drawable || printedAsTable;

  const exportCsv = () =>
    saveCsv(
      exportName(dashboard, title, 'csv'),
      { ...meta, title: `${dashboard} – ${title}` },
      columns,
      rows,
    );
  const exportPng = () => {
    const png = canvas.current?.png(pngHeader(dashboard, title, meta));
    if (png) saveFile(exportName(dashboard, title, 'png'), png);
  };

  const body = !rows.length ? (
    <p className="chart-empty muted">{empty}</p>
  ) : report && chart ? (
    <>
      <ChartCanvas
        ref={canvas}
        config={chart.config}
        summary={chart.summary}
        height={chart.height}
        onUnavailable={() => setDrawable(false)}
      />
      <ReportTable caption={title} rows={rows} columns={columns} />
    </>
  ) : showTable ? (
    <DataTable caption={title} rows={rows} columns={columns} drill={drill} />
  ) : (
    <ChartCanvas
      ref={canvas}
      config={chart!.config}
      summary={chart!.summary}
      height={chart!.height}
      onPick={
        drill
          ? ({ index, datasetIndex }) =>
              rows[index] && drill.enabled?.(rows[index]) !== false && drill.open(rows[index], datasetIndex)
          : undefined
      }
      onBrush={
        chart!.onBrush &&
        ((first, last) => rows[first] && rows[last] && chart!.onBrush!(rows[first], rows[last]))
      }
      onUnavailable={() => setDrawable(false)}
      // The printed page is laid out as soon as `beforeprint` returns: the table must be in the page by then.
      onPrintUndrawn={() => flushSync(() => setPrintedAsTable(true))}
    />
  );
  if (bare) {
    return (
      <>
        {body}
        <button type="button" className="button small" onClick={exportCsv} disabled={!rows.length}>
          Download CSV
        </button>
      </>
    );
  }

  return (
    <section
      className={['chart-card', wide && 'wide', report && 'in-report'].filter(Boolean).join(' ')}
      aria-labelledby={`${id}-title`}
    >
      <header className="chart-card-header">
        <h2 id={`${id}-title`}>{title}</h2>
        <div className="chart-card-actions" hidden={report}>
          {chart && drawable ? (
            <div className="segmented" role="group" aria-label={`${title}: show as`}>
              <button type="button" aria-pressed={view === 'chart'} onClick={() => setView('chart')}>
                Chart
              </button>
              <button type="button" aria-pressed={view === 'table'} onClick={() => setView('table')}>
                Table
              </button>
            </div>
          ) : null}
          <button
            type="button"
            className="button small"
            onClick={exportCsv}
            disabled={!rows.length}
            aria-label={`Download ${title} as CSV`}
          >
            CSV
          </button>
          {chart && drawable ? (
            <button
              type="button"
              className="button small"
              onClick={exportPng}
              disabled={!rows.length || view !== 'chart'}
              aria-label={`Download ${title} as PNG`}
            >
              PNG
            </button>
          ) : null}
        </div>
      </header>
      {body}
      {chart && drill && view === 'chart' && rows.length ? (
        <p className="small muted chart-hint">
          Click a bar or point to see its posts, or use the table view.
        </p>
      ) : null}
      {footer}
      <Counted sentence={meta.counted} open={report} />
    </section>
  );
}

/** Rows of a chart's table in a report at most: the chart shows every row, its table the top ones. */
const REPORT_TABLE_ROWS = 10;

/**
 * A chart's table in a report: its rows with the most of its first figure (the chart's measure), at most
 * REPORT_TABLE_ROWS, kept in the chart's order, and a line saying so when some are left out.
 */
function ReportTable<R>({
  caption,
  rows,
  columns,
}: {
  caption: string;
  rows: readonly R[];
  columns: ReadonlyArray<TableColumn<R>>;
}) {
  if (rows.length <= REPORT_TABLE_ROWS) return <DataTable caption={caption} rows={rows} columns={columns} />;
  const measure = columns.find((column) => column.numeric && !column.csvOnly);
  const valueOf = (row: R) => Number(measure?.value(row) ?? 0) || 0;
  const kept = measure
    ? new Set(
        rows
          .map((row, index) => ({ index, value: valueOf(row) }))
          .sort((a, b) => b.value - a.value || a.index - b.index)
          .slice(0, REPORT_TABLE_ROWS)
          .map(({ index }) => index),
      )
    : new Set(Array.from({ length: REPORT_TABLE_ROWS }, (_, index) => index));
  return (
    <>
      <DataTable caption={caption} rows={rows.filter((_, index) => kept.has(index))} columns={columns} />
      <p className="small muted report-table-note">
        {measure
          ? `The ${REPORT_TABLE_ROWS} rows of ${rows.length} with the most ${measure.label.toLowerCase()}; the chart shows all ${rows.length}.`
          : `The first ${REPORT_TABLE_ROWS} rows of ${rows.length}; the chart shows all ${rows.length}.`}
      </p>
    </>
  );
}

function DataTable<R>({
  caption,
  rows,
  columns,
  drill,
}: {
  caption: string;
  rows: readonly R[];
  columns: ReadonlyArray<TableColumn<R>>;
  drill?: Drill<R>;
}) {
  const shown = columns.filter((column) => !column.csvOnly);
  return (
    <div className="table-wrap">
      <table className="table data-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {shown.map((column) => (
              <th key={column.label} scope="col" className={column.numeric ? 'numeric' : undefined}>
                {column.label}
              </th>
            ))}
            {drill ? (
              <th scope="col">
                <span className="visually-hidden">Drill down</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index}>
              {shown.map((column, columnIndex) => {
                const content = column.show ? column.show(row) : String(column.value(row) ?? '–');
                return columnIndex === 0 ? (
                  <th key={column.label} scope="row">
                    {content}
                  </th>
                ) : (
                  <td key={column.label} className={column.numeric ? 'numeric' : undefined}>
                    {content}
                  </td>
                );
              })}
              {drill ? (
                <td>
                  {drill.enabled?.(row) === false ? null : drill.series ? (
                    drill.series.map((name, seriesIndex) => (
                      <button
                        key={name}
                        type="button"
                        className="link-button"
                        aria-label={`${drill.label(row)}: ${name}`}
                        onClick={() => drill.open(row, seriesIndex)}
                      >
                        {name}
                      </button>
                    ))
                  ) : (
                    <button
                      type="button"
                      className="link-button"
                      aria-label={drill.label(row)}
                      onClick={() => drill.open(row)}
                    >
                      Posts
                    </button>
                  )}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The server's sentence on exactly what a card counts: one line, opened on demand (it is long and alike per card). */
export function Counted({ sentence, open = false }: { sentence: string; open?: boolean }) {
  return (
    <details className="counted small muted" open={open}>
      <summary>What is counted</summary>
      <p>{sentence}</p>
    </details>
  );
}
