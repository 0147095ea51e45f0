// A process running the sentiment rescan (server/social/corpus/rescan.ts) on a database, for the kill -9 test
// (test/server/social/sentiment-rescan.test.ts). It prints "@@ batch <done> <total>" after each committed batch and
// "@@ finished <done>" at the end; the test kills it (SIGKILL) while it runs, mid-batch as often as not.
// Usage: node --import tsx test/support/sentiment-rescan-child.ts <databaseUrl> <batchSize>
import pg from 'pg';
import { runRescan } from '@server/social/corpus/rescan';

const [url, batchSize] = process.argv.slice(2);
const say = (line: string) => console.log(`@@ ${line}`);

const pool = new pg.Pool({ connectionString: url, max: 1 });
const progress = await runRescan(pool, {
  batchSize: Number(batchSize),
  afterBatch: (p) => say(`batch ${p.done} ${p.total}`),
});
say(`finished ${progress.done}`);
await pool.end();
