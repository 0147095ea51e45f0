// How the analytics store's refusals are read: a statement's time limit and its refusal, a store missing its database
// or a table, and a store whose files are damaged or gone. The same for the embedded store and a ClickHouse server.

/**
 * A statement's time limit, as the SETTINGS clause to end it with: the engine cancels it past `ms` and refuses it with
 * TIMEOUT_EXCEEDED (isStoreTimeout), as PostgreSQL's statement_timeout does; the client's own timeout, by contrast,
 * leaves the statement running in the store's process.
 */
export const timeLimit = (ms: number) => `SETTINGS max_execution_time = ${Number(ms) / 1000}`;

/** Whether the store refused a statement for its time limit (timeLimit). */
export const isStoreTimeout = (error: unknown) =>
  error instanceof Error && error.message.includes('(TIMEOUT_EXCEEDED)');

/**
 * Whether the store refused a statement for want of its database or a table: a store dropped or replaced under the
 * running service (a ClickHouse server's data), which the service then reconciles or rebuilds (distrust).
 */
export const isStoreMissing = (error: unknown) =>
  error instanceof Error && /\((UNKNOWN_DATABASE|UNKNOWN_TABLE)\)$/.test(error.message);

/**
 * ClickHouse's refusals of a store whose files are damaged or gone (as chdb gives them: a part's file garbled, cut
 * short or deleted under the process. Measured: garbage at the head of a part's data file is UNKNOWN_CODEC (the
 * block's codec byte), CHECKSUM_DOESNT_MATCH, or with a known codec byte CORRUPTED_DATA (a block size too large); `rm -rf DATA_DIR/analytics` under the process is FILE_DOESNT_EXIST,
 * or a C++ filesystem error, STD_EXCEPTION "No such file or directory").
 */
export const CORRUPT_CODES = [
  'CHECKSUM_DOESNT_MATCH',
  'CANNOT_READ_ALL_DATA',
  'CORRUPTED_DATA',
  'FILE_DOESNT_EXIST',
  'CANNOT_OPEN_FILE',
  'CANNOT_READ_FROM_FILE_DESCRIPTOR',
  'CANNOT_DECOMPRESS',
  'UNKNOWN_COMPRESSION_METHOD',
  'UNKNOWN_CODEC',
  'TOO_LARGE_SIZE_COMPRESSED',
  'ATTEMPT_TO_READ_AFTER_EOF',
  'NO_FILE_IN_DATA_PART',
  'POTENTIALLY_BROKEN_DATA_PART',
  'DIRECTORY_DOESNT_EXIST',
  'CANNOT_STAT',
];
const CORRUPT = new RegExp(`\\((${CORRUPT_CODES.join('|')})\\)$`);

/**
 * Whether the store refused a statement because its files are damaged or gone (CORRUPT_CODES): the store is not to be
 * trusted until it is rebuilt (the service rebuilds it, on a fresh directory when its directory is gone).
 */
export const isStoreCorrupt = (error: unknown) =>
  error instanceof Error &&
  (CORRUPT.test(error.message) ||
    (/\(STD_EXCEPTION\)$/.test(error.message) && /No such file or directory|ENOENT/.test(error.message)));
