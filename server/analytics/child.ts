// The analytics store's process: one chdb Session (embedded ClickHouse) on the store's data directory, answering the
// queries its parent sends over IPC. In a process of its own so that an engine abort or its memory never takes the web
// server down, its threads are capped apart from the server's, and each test file may open a store of its own (chdb
// allows one data directory per process). Only `queryAsync` is used: the synchronous `query()` blocks the event loop
// for the whole query, and this loop must keep reading IPC messages.
import { Session } from 'chdb';
import type { ChildMessage, ChildOptions, QueryRequest } from './protocol';

const send = (message: ChildMessage): void => void process.send?.(message);

function open(options: ChildOptions): Session {
  return new Session(options.dataDir, {
    connectionArgs: [
      `--max_threads=${options.maxThreads}`,
      // 64-bit integers as JSON strings: a JavaScript number would round them.
      '--output_format_json_quote_64bit_integers=1',
      // `id IN (token set)` matches spread over every granule: analysing the set against the primary key costs and
      // saves nothing (3× slower at 1M posts, docs/analytics-engine.md).
      '--use_index_for_in_with_subqueries=0',
    ],
  });
}

function main() {
  if (!process.send) {
    console.error(
      'server/analytics/child.ts is started by the analytics store (server/analytics/store.ts), not by hand.',
    );
    process.exit(2);
  }
  let session: Session;
  let options: ChildOptions;
  try {
    options = JSON.parse(process.argv[2] ?? '') as ChildOptions;
    session = open(options);
  } catch (error) {
    send({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
  const inFlight = new Set<Promise<unknown>>();
  process.on('message', (request: QueryRequest) => {
    const answer = request.params
      ? session.queryBindAsync(request.sql, request.params, { format: 'JSONEachRow' })
      : session.queryAsync(request.sql, { format: 'JSONEachRow' });
    const done = answer
      .then(
        (result) => send({ type: 'result', id: request.id, text: result.text() }),
        (error: unknown) =>
          send({
            type: 'error',
            id: request.id,
            error: error instanceof Error ? error.message : String(error),
          }),
      )
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  });
  // The parent closed the channel (its close(), or it died): closing a session with a query in flight aborts the
  // engine, so the queries finish first, for closeGraceMs at most; the engine cannot cancel a query, so a process
  // still busy after that kills itself rather than outlive its parent.
  process.on('disconnect', () => {
    // Not process.exit(): libchdb's exit handlers wait for the running query, so the process would never end.
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), options.closeGraceMs).unref();
    void Promise.allSettled([...inFlight]).then(() => {
      session.close();
      process.exit(0);
    });
  });
  send({ type: 'ready' });
}

main();
