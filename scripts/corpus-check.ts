// `npm run corpus:check [-- --repair]`: recounts every table derived from the posts (post_hours, post_days,
// post_tag_days, author_post_times, post_keys) from the posts of the database the server uses (DATABASE_URL, or the
// embedded PostgreSQL in DATA_DIR), reports each difference, and with --repair rebuilds them from the posts. Exit
// code 0 when every table equals its recount (after the repair, with --repair), 1 otherwise.
import { parseArgs } from 'node:util';
import { checkCorpus, differs, repairCorpus, type CorpusCheck } from '@server/social/corpus/check';
import { createProgress, formatDuration, openCorpusDatabase, type Progress } from '@server/social/corpus/cli';

const USAGE = `Usage: npm run corpus:check [-- --repair]

  --repair   rebuild the derived tables from the posts when they differ (one transaction; writers of the corpus
             wait for it, dashboards reading those tables too)
  --help     this text`;

const count = (n: number) => n.toLocaleString('en-US');

/** Prints the check; true when every table equals its recount. */
function report(check: CorpusCheck): boolean {
  const wrong = check.tables.filter(differs);
  for (const t of wrong) {
    console.log(
      `${t.table}: ${count(t.stored + t.recounted)} rows differ from a recount of the posts ` +
        `(${count(t.stored)} stored rows not in the recount, ${count(t.recounted)} recounted rows not stored)`,
    );
  }
  if (check.duplicates.length > 0) {
    const shown = check.duplicates.slice(0, 20).join(', ');
    console.log(
      `posts: ${count(check.duplicates.length)} posts share an external key with an older post (ids ${shown}` +
        `${check.duplicates.length > 20 ? ', …' : ''}); the key stays with the older one. Delete the others with ` +
        `SELECT corpus_delete_posts('id IN (…)').`,
    );
  }
  if (wrong.length === 0) {
    console.log(
      `Every derived table equals a recount of the posts (${check.tables
        .map((t) => `${t.table} ${count(t.rows)} rows`)
        .join(', ')}).`,
    );
  }
  return wrong.length === 0 && check.duplicates.length === 0;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      repair: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const database = await openCorpusDatabase();
  const client = await database.pool.connect();
  let progress: Progress | undefined;
  try {
    const started = performance.now();
    const check = await checkCorpus(client);
    console.log(
      `Checked ${count(check.posts)} posts in ${database.describe} in ${formatDuration(performance.now() - started)}.`,
    );
    const exact = report(check);
    if (!check.tables.some(differs)) return exact ? 0 : 1;
    if (!values.repair) {
      console.log('Run npm run corpus:check -- --repair to rebuild them from the posts.');
      return 1;
    }
    const repairStarted = performance.now();
    await repairCorpus(client, (done, total) => {
      progress ??= createProgress('Rebuilt', total, 'posts');
      progress.update(done, total);
    });
    progress?.stop();
    progress = undefined;
    console.log(
      `Repaired: the derived tables were rebuilt from the posts in ${formatDuration(performance.now() - repairStarted)}; ` +
        'the corpus version was raised (cached answers are recomputed).',
    );
    return report(await checkCorpus(client)) ? 0 : 1;
  } finally {
    progress?.stop();
    client.release();
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // One line, no stack trace: what the database answered (or that it went away).
    const message = error instanceof Error ? error.message : String(error);
    console.error(`The corpus could not be checked: ${message}`);
    process.exit(1);
  },
);
