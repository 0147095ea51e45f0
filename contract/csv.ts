// The one CSV writer of every export: the server's streamed post and profile lists, and the tables of the charts the
// SPA makes from the page's data. A file opens with comment lines ("# ", one line each, as pandas' comment='#' and R's
// comment.char read them), then records that csv-stringify writes: RFC 4180 quoting (a field holding a comma, a
// quote, CR or LF is quoted, quotes doubled), CRLF after every record, null as an empty field, numbers and booleans as
// JavaScript prints them. Formulas are neutralised with its escape_formulas: a text field starting with =, +, -, @, a
// tab, a CR or the full-width ＝ ＋ － ＠ gets a leading apostrophe, so a spreadsheet shows it instead of evaluating it
// (numbers are never prefixed: a negative sentiment stays a number). escape_formulas looks at the first character
// only, and spreadsheets skip leading whitespace before a formula, so a text field whose formula character follows
// whitespace (spaces, LF, a no-break or ideographic space…) is prefixed the same way here.
//
// The browser build of csv-stringify is the one imported: the same code as the Node build, which needs Buffer and so
// cannot run in the SPA.
import { stringify, type Options } from 'csv-stringify/browser/esm/sync';

export type CsvValue = string | number | boolean | null;

const FORMULA_AFTER_WHITESPACE = /^\s+[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/;

// A function, not one object: csv-stringify writes its defaults into the options it is given.
const options = (): Options => ({
  record_delimiter: '\r\n',
  // With a record delimiter of its own csv-stringify would quote only fields holding CRLF, not a lone CR or LF.
  quote_record_delimiter: true,
  escape_formulas: true,
  cast: {
    boolean: (value) => String(value),
    string: (value) => (FORMULA_AFTER_WHITESPACE.test(value) ? `'${value}` : value),
  },
});

/** The records, each ending in CRLF; the empty string for none. */
export function csvRecords(records: ReadonlyArray<readonly CsvValue[]>): string {
  return stringify(records as CsvValue[][], options());
}

/** Comment lines: "# " and the text, line breaks in it made spaces, each ending in CRLF. */
export function csvComments(lines: readonly string[]): string {
  return lines.map((line) => `# ${line.replace(/[\r\n]+/g, ' ')}\r\n`).join('');
}
