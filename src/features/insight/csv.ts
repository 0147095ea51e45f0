// CSV files of what a chart or table shows, made in the browser from the data already on the page (the long post and
// profile lists are streamed by the server instead: export-download.ts). Every file says what it holds in comment
// lines first (`#`, unquoted, as pandas' `comment='#'` and R's `comment.char` read them): the dashboard, the time
// zone, the range and the server's "counted" sentence. The records are written by the exports' one CSV writer
// (contract/csv.ts: RFC 4180 quoting, formulas neutralised), the server's too; it is loaded when a file is first
// made, not with the page.
import type { CsvValue } from '@contract/csv';
import { saveFile } from '@/lib/save-file';
import { showToast } from '@/lib/toast';

export interface CsvColumn<R> {
  label: string;
  value: (row: R) => CsvValue;
}

export interface CsvMeta {
  title: string;
  timeZone: string;
  range: { from: string; to: string };
  counted: string;
  /** The query as the server understood it (null: every post); the file states it in the "counted" line. */
  query?: string | null;
}

export async function toCsv<R>(
  meta: CsvMeta,
  columns: ReadonlyArray<CsvColumn<R>>,
  rows: readonly R[],
): Promise<string> {
  const { csvComments, csvRecords } = await import('@contract/csv');
  return (
    csvComments([
      `Murmur export: ${meta.title}`,
      `Workspace time zone: ${meta.timeZone}`,
      `Range (UTC, from inclusive, to exclusive): ${meta.range.from} to ${meta.range.to}`,
      `Counted: ${meta.counted}`,
    ]) +
    csvRecords([
      columns.map((column) => column.label),
      ...rows.map((row) => columns.map((column) => column.value(row))),
    ])
  );
}

/** Makes the file and saves it under `filename`; a failure (the writer not loading) is said in a toast. */
export function saveCsv<R>(
  filename: string,
  meta: CsvMeta,
  columns: ReadonlyArray<CsvColumn<R>>,
  rows: readonly R[],
): void {
  toCsv(meta, columns, rows).then(
    (text) => saveFile(filename, new Blob([text], { type: 'text/csv;charset=utf-8' })),
    () => showToast('error', 'The CSV file could not be made. Try again.'),
  );
}

/** A file name for the dashboard and chart: murmur-overview-mentions-over-time-2026-11-22.csv */
export const exportName = (dashboard: string, chart: string, extension: 'csv' | 'png') =>
  `murmur-${dashboard}-${chart}`.toLowerCase().replace(/[^a-z0-9]+/g, '-') +
  `-${new Date().toISOString().slice(0, 10)}.${extension}`;
