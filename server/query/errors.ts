// A query the parser cannot accept: where (1-based column and length, in UTF-16 code units) and what to do about it.
import type { QueryError } from '@contract/social-query';

export class QuerySyntaxError extends Error {
  override readonly name = 'QuerySyntaxError';

  constructor(
    message: string,
    /** 1-based; one past the end (length + 1) for "missing something at the end". */
    readonly column: number,
    /** How many characters from `column` the error is about; 0 when something is missing. */
    readonly length: number,
  ) {
    super(message);
  }

  toJSON(): QueryError {
    return { message: this.message, column: this.column, length: this.length };
  }
}
