// `npm run corpus:generate -- --posts 1000000 --seed 42 [--replace | --append] [--days 180] [--end 2025-06-01]`
// Generates a synthetic corpus (profiles, then posts) and bulk-loads it with COPY into the database the server uses
// (DATABASE_URL, or the embedded PostgreSQL in DATA_DIR). The same options give the same corpus; see
// docs/corpus-format.md.
import { parseArgs } from 'node:util';
import { corpusChecksum } from '@server/social/corpus/checksum';
import { createProgress, formatDuration, openCorpusDatabase, type Progress } from '@server/social/corpus/cli';
import { CorpusLoadError, generateCorpus, type LoadMode } from '@server/social/corpus/generate/load';
import { DEFAULT_DAYS } from '@server/social/corpus/generate/plan';

const USAGE = `Usage: npm run corpus:generate -- [--posts N] [--seed N] [--replace | --append] [options]

  --posts N       posts to generate (default 100000)
  --seed N        seed of the generator, 0–4294967295 (default 42)
  --replace       empty posts and profiles first (corpus_truncate(): TRUNCATE … CASCADE)
  --append        add to a corpus that is not empty (needs a seed not loaded yet)
  --days N        length of the window in days (default ${DEFAULT_DAYS})
  --end DATE      end of the window, a UTC date (default: today, 00:00 UTC)
  --batch N       posts per transaction (default 50000)
  --checksum      print a checksum of the whole corpus at the end
  --help          this text`;

/** A bad command line: the message and the usage are printed. */
class UsageError extends CorpusLoadError {}

function integer(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number ≥ 0`);
  return n;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      posts: { type: 'string' },
      seed: { type: 'string' },
      replace: { type: 'boolean', default: false },
      append: { type: 'boolean', default: false },
      days: { type: 'string' },
      end: { type: 'string' },
      batch: { type: 'string' },
      checksum: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.replace && values.append) throw new UsageError('Pass either --replace or --append, not both');
  const end = values.end === undefined ? undefined : Date.parse(values.end);
  if (end !== undefined && Number.isNaN(end)) throw new UsageError('--end must be a date (2025-06-01)');
  const mode: LoadMode = values.replace ? 'replace' : values.append ? 'append' : 'refuse';
  const options = {
    posts: integer(values.posts, 'posts', 100_000),
    seed: integer(values.seed, 'seed', 42),
    days: integer(values.days, 'days', DEFAULT_DAYS),
    end,
    mode,
    batchSize: integer(values.batch, 'batch', 50_000),
  };

  const database = await openCorpusDatabase();
  let progress: Progress | undefined;
  let phase = '';
  try {
    console.log(
      `Generating ${options.posts.toLocaleString('en-US')} posts (seed ${options.seed}, ${options.days} days) ` +
        `into ${database.describe}`,
    );
    const result = await generateCorpus(database.pool, {
      ...options,
      onWarning: (message) => console.warn(`Warning: ${message}`),
      onProgress: ({ phase: next, done, total }) => {
        if (next !== phase) {
          progress?.stop();
          phase = next;
          progress =
            next === 'generate'
              ? createProgress('Generated', total, 'posts')
              : next === 'posts'
                ? createProgress('Stored', total, 'posts')
                : undefined;
          if (next === 'profiles' && done === 0) console.log(`Profiles: ${total.toLocaleString('en-US')}…`);
          if (next === 'analyze') console.log('Vacuuming and updating planner statistics (VACUUM ANALYZE)…');
        }
        progress?.update(done, total);
      },
    });
    progress?.stop();
    const rate = result.posts / (result.postsMs / 1000);
    console.log(
      `Done: ${result.profiles.toLocaleString('en-US')} profiles and ${result.posts.toLocaleString('en-US')} posts ` +
        `in ${formatDuration(result.elapsedMs)} (posts: ${formatDuration(result.postsMs)}, ` +
        `${Math.round(rate).toLocaleString('en-US')} posts/s).`,
    );
    if (values.checksum) {
      const checksum = await corpusChecksum(database.pool);
      console.log(`Checksum: ${checksum.digest} (${checksum.profiles} profiles, ${checksum.posts} posts)`);
    }
    return 0;
  } finally {
    progress?.stop();
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // One line, no stack trace: a bad option, or what the database answered (or that it went away).
    const message = error instanceof Error ? error.message : String(error);
    console.error(
      error instanceof CorpusLoadError ? message : `The corpus could not be generated: ${message}`,
    );
    if (error instanceof UsageError) console.error(`\n${USAGE}`);
    process.exit(1);
  },
);
