// `npm run corpus:import -- <file> [--format ndjson|csv] [--errors rejected.ndjson]`
// Imports posts (with their authors) from an NDJSON or CSV file into the database the server uses. The format is in
// docs/corpus-format.md. Exit code: 0 every row imported, 1 the file could not be read (or the import failed),
// 2 some rows were rejected (the others are imported).
import { createWriteStream, type WriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { createProgress, formatDuration, openCorpusDatabase, type Progress } from '@server/social/corpus/cli';
import {
  DEFAULT_IMPORT_BATCH,
  ImportFileError,
  importCorpus,
  type RejectedRow,
} from '@server/social/corpus/import/run';

const USAGE = `Usage: npm run corpus:import -- <file> [--format ndjson|csv] [--errors <file>] [--batch N]

  <file>            .ndjson / .jsonl (one JSON object per line) or .csv (with a header line)
  --format F        ndjson or csv, when the extension does not tell
  --errors FILE     also write the rejected rows to FILE as NDJSON ({"line", "reason", "raw"})
  --batch N         rows per transaction (default ${DEFAULT_IMPORT_BATCH})
  --quiet           no per-row messages, only the summary

Exit code: 0 all rows imported; 1 the file could not be read; 2 some rows were rejected.`;

/** Rejections printed one per line before only counting them. */
const PRINT_LIMIT = 200;
const SUMMARY_LIMIT = 20;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      errors: { type: 'string' },
      batch: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(`Expected one file to import.\n\n${USAGE}`);
    return 1;
  }
  const [file] = positionals as [string];
  const batchSize = values.batch === undefined ? undefined : Number(values.batch);
  if (batchSize !== undefined && (!Number.isInteger(batchSize) || batchSize < 1)) {
    console.error('--batch must be a whole number ≥ 1');
    return 1;
  }

  const rejected: RejectedRow[] = [];
  let errorsFile: WriteStream | undefined;
  let progress: Progress | undefined;
  const database = await openCorpusDatabase();
  try {
    if (values.errors) errorsFile = createWriteStream(values.errors);
    console.log(`Importing ${file} into ${database.describe}`);
    const summary = await importCorpus(database.pool, file, {
      format: values.format as 'ndjson' | 'csv' | undefined,
      batchSize,
      onRejected: (row) => {
        if (rejected.length < PRINT_LIMIT && !values.quiet) {
          if (process.stdout.isTTY) progress?.stop();
          console.error(`line ${row.line}: ${row.reason}`);
        }
        if (rejected.length === PRINT_LIMIT && !values.quiet)
          console.error('… further rejections are only counted');
        rejected.push(row);
        errorsFile?.write(`${JSON.stringify(row)}\n`);
      },
      onProgress: (bytes, size) => {
        progress ??= createProgress('Import', size, 'bytes');
        progress.update(bytes, size);
      },
    });
    progress?.stop();
    const rate = summary.rows / Math.max(0.001, summary.elapsedMs / 1000);
    console.log(
      `Done in ${formatDuration(summary.elapsedMs)}: ${summary.rows} rows read, ${summary.inserted} posts inserted, ` +
        `${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.rejected} rejected ` +
        `(${Math.round(rate)} rows/s).`,
    );
    if (summary.rejected > 0) {
      const lines = rejected
        .sort((a, b) => a.line - b.line)
        .slice(0, SUMMARY_LIMIT)
        .map((r) => `  line ${r.line}: ${r.reason}`);
      const more =
        summary.rejected > SUMMARY_LIMIT ? `\n  … and ${summary.rejected - SUMMARY_LIMIT} more` : '';
      console.error(`Rejected rows:\n${lines.join('\n')}${more}`);
      if (values.errors) console.error(`All rejected rows are in ${values.errors}.`);
      return 2;
    }
    return 0;
  } catch (error) {
    progress?.stop();
    if (error instanceof ImportFileError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await new Promise<void>((resolve) => (errorsFile ? errorsFile.end(resolve) : resolve()));
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`The import failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
