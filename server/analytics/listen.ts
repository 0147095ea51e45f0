// The writers' notification that the outbox has a new batch (analytics_outbox_append, migration 0021), heard on a
// connection of its own (server/db/listen.ts). Only a hint: the applier also looks on a timer, so a lost connection
// delays batches by that much and loses none.
import type pg from 'pg';
import { listenOnOwnConnection } from '@server/db/listen';

const OUTBOX_CHANNEL = 'murmur_analytics_outbox';

export const listenForBatches = (pool: pg.Pool, onBatch: () => void) =>
  listenOnOwnConnection(pool, {
    channel: OUTBOX_CHANNEL,
    applicationName: 'murmur analytics feed',
    onNotification: onBatch,
    onConnected: onBatch, // what came while it was not listening
  });
