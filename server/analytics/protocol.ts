// The messages between the server's side of the analytics store (store.ts) and its child process (child.ts), over
// Node's IPC channel.

/** What the child is started with (its one argument, as JSON). */
export interface ChildOptions {
  /** The store's data directory (absolute): chdb keeps one per process. */
  dataDir: string;
  /** ClickHouse's `max_threads` for every query (the process runs below the server's priority: store.ts). */
  maxThreads: number;
  /** Connections to the directory: how many statements run at once. */
  connections: number;
  /** When the parent goes: how long the queries still running may finish before the process exits without them. */
  closeGraceMs: number;
}

export interface QueryRequest {
  id: number;
  /** The statement, its values inlined by the parent (params.ts, inlineParams). */
  sql: string;
}

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'failed'; error: string }
  | { type: 'result'; id: number; text: string }
  | { type: 'error'; id: number; error: string };
