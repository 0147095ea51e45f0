// The values of one store statement: each is given a placeholder name and its ClickHouse type, and travels beside the
// SQL text (AnalyticsStore.query's `params`), so that no value from a request is ever spliced into a statement.

/** A condition over the store's `posts p` (and what it reads through subqueries), with the values it binds. */
export interface StoreCondition {
  sql: string;
  params: Record<string, unknown>;
}

export class StoreParams {
  readonly values: Record<string, unknown> = {};
  private next = 0;

  /** The placeholder for `value` as the ClickHouse type `type` (e.g. 'String', 'UInt64', 'Array(String)'). */
  add(value: unknown, type: string): string {
    if (!/^[A-Za-z0-9(), ]+$/.test(type)) throw new Error(`Not a ClickHouse type: ${type}`);
    const name = `v${this.next++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }
}
