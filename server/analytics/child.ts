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
      // Values are inlined (params.ts): a round's ids or a language's stop words make statements of megabytes.
      '--max_query_size=67108864',
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
  let sessions: Session[];
  let options: ChildOptions;
  try {
    options = JSON.parse(process.argv[2] ?? '') as ChildOptions;
    // Several connections to the one directory: a connection runs its queries one at a time, so each statement takes
    // an idle one (the least busy when all are), and the statements of one dashboard, or of several, run side by side.
    const first = open(options);
    sessions = [first, ...Array.from({ length: Math.max(0, options.connections - 1) }, () => open(options))];
  } catch (error) {
    send({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
  const inFlight = new Set<Promise<unknown>>();
  const busy = sessions.map(() => 0);
  process.on('message', (request: QueryRequest) => {
    const index = busy.indexOf(Math.min(...busy));
    busy[index]! += 1;
    // Values arrive inlined (params.ts): chdb runs bound queries one at a time in the whole process, plain ones
    // side by side.
    const answer = sessions[index]!.queryAsync(request.sql, { format: 'JSONEachRow' });
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
      .finally(() => {
        busy[index]! -= 1;
        inFlight.delete(done);
      });
    inFlight.add(done);
  });
  // The parent closed the channel (its close(), or it died): closing a session with a query in flight aborts the
  // engine, so the queries finish first, for closeGraceMs at most; the engine cannot cancel a query, so a process
  // still busy after that kills itself rather than outlive its parent.
  process.on('disconnect', () => {
    // Not process.exit(): libchdb's exit handlers wait for the running query, so the process would never end.
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), options.closeGraceMs).unref();
    void Promise.allSettled([...inFlight]).then(() => {
      for (const session of sessions) session.close();
      process.exit(0);
    });
  });
  send({ type: 'ready' });
}

main();
