// A process running the sentiment rescan (server/social/corpus/rescan.ts) on a database, for the kill -9 test
// (test/server/social/sentiment-rescan.test.ts). It prints "@@ batch <done> <total>" after each committed batch and
// "@@ finished <done>" at the end. With a third argument n, it prints "@@ held <done>" inside the n-th batch's
// transaction, once the batch's posts, log row and cursor are written and before they commit, and waits there until
// the test kills it (kill -9).
// Usage: node --import tsx test/support/sentiment-rescan-child.ts <databaseUrl> <batchSize> [n]
import pg from 'pg';
import { runRescan } from '@server/social/corpus/rescan';

const [url, batchSize, holdAt] = process.argv.slice(2);
const say = (line: string) => console.log(`@@ ${line}`);

const pool = new pg.Pool({ connectionString: url, max: 1 });
let batches = 0;
const progress = await runRescan(pool, {
  batchSize: Number(batchSize),
  afterBatch: (p) => say(`batch ${p.done} ${p.total}`),
  beforeCommit: async (p) => {
    batches += 1;
    if (String(batches) !== holdAt) return;
    say(`held ${p.done}`);
    await new Promise(() => {}); // until killed
  },
});
say(`finished ${progress.done}`);
await pool.end();
