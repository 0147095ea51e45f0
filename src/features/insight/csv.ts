// CSV files of what a chart or table shows, made in the browser from the data already on the page (the long post and
// profile lists are streamed by the server instead: export-download.ts). Every file says what it holds in comment
// lines first (`#`, unquoted, as pandas' `comment='#'` and R's `comment.char` read them): the dashboard, the time zone, the range and the server's "counted" sentence. Fields are quoted as
// RFC 4180 says, and a field a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading
// apostrophe, as the server's exports do.

export interface CsvColumn<R> {
  label: string;
  value: (row: R) => string | number | boolean | null;
}

export interface CsvMeta {
  title: string;
  timeZone: string;
  range: { from: string; to: string };
  counted: string;
}

const FORMULA = /^[=+\-@\t\r]/;

function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv<R>(meta: CsvMeta, columns: ReadonlyArray<CsvColumn<R>>, rows: readonly R[]): string {
  const comments = [
    `# Murmur export: ${meta.title}`,
    `# Workspace time zone: ${meta.timeZone}`,
    `# Range (UTC, from inclusive, to exclusive): ${meta.range.from} to ${meta.range.to}`,
    `# Counted: ${meta.counted}`,
  ].map((line) => line.replace(/[\r\n]+/g, ' '));
  const lines = [
    ...comments,
    columns.map((column) => csvField(column.label)).join(','),
    ...rows.map((row) => columns.map((column) => csvField(column.value(row))).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

/** A file name for the dashboard and chart: murmur-overview-mentions-over-time-2026-11-22.csv */
export const exportName = (dashboard: string, chart: string, extension: 'csv' | 'png') =>
  `murmur-${dashboard}-${chart}`.toLowerCase().replace(/[^a-z0-9]+/g, '-') +
  `-${new Date().toISOString().slice(0, 10)}.${extension}`;
