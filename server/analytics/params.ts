// The values of one store statement: each is given a placeholder name and its ClickHouse type (`{name:Type}` in the
// statement's text) and travels beside the SQL text (AnalyticsStore.query's `params`). Before the statement runs, each
// placeholder becomes an expression of its type whose text holds no character of the value (inlineParams): a string
// as `unhex` of its UTF-8 bytes in hexadecimal, a number only after it is checked to be one. So no value from a
// request can change a statement's meaning, and the statements need no binding by the engine, whose bound queries
// chdb runs one at a time in the whole process (its parameters are not per connection: node_modules/chdb/index.js,
// globalParamChain); inlined, the store's statements run side by side.

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
    if (!TYPE.test(type)) throw new Error(`Not a ClickHouse type: ${type}`);
    const name = `v${this.next++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }
}

/** A value that cannot be given as its placeholder's type. */
class StoreParamError extends Error {
  override name = 'StoreParamError';
}

const INTEGER = /^U?Int(8|16|32|64)$/;
const TYPE =
  /^(String|UUID|U?Int(8|16|32|64)|Float(32|64)|Array\((String|UUID|U?Int(8|16|32|64)|Float(32|64))\))$/;
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([A-Za-z0-9(), ]+)\}/g;
/** A ClickHouse array of integers as text (the applier's ids, exact beyond 2^53). */
const INTEGER_ARRAY_TEXT = /^\[(-?\d+(,-?\d+)*)?\]$/;

function integerText(value: unknown, type: string): string {
  const text =
    typeof value === 'bigint'
      ? value.toString()
      : typeof value === 'number' && Number.isSafeInteger(value)
        ? String(value)
        : typeof value === 'string' && /^-?\d{1,20}$/.test(value)
          ? value
          : null;
  if (text === null || !inRange(BigInt(text), type)) {
    throw new StoreParamError(`Not a value of ${type}: ${String(value).slice(0, 40)}`);
  }
  return text;
}

/** Whether `n` is a value of the integer type `type` (CAST would wrap one that is not: 300 as UInt8 is 44). */
function inRange(n: bigint, type: string): boolean {
  const bits = BigInt(Number(/\d+$/.exec(type)![0]));
  return type.startsWith('U')
    ? n >= 0n && n < 1n << bits
    : n >= -(1n << (bits - 1n)) && n < 1n << (bits - 1n);
}

/** `value` as an expression of the ClickHouse type `type` whose text holds only hexadecimal digits of a string. */
function literal(value: unknown, type: string): string {
  const element = /^Array\((.+)\)$/.exec(type)?.[1];
  if (element !== undefined) {
    if (typeof value === 'string' && INTEGER.test(element) && INTEGER_ARRAY_TEXT.test(value)) {
      return `CAST(${value} AS ${type})`;
    }
    if (!Array.isArray(value)) throw new StoreParamError(`Not a value of ${type}: ${typeof value}`);
    if (value.length === 0) return `CAST([] AS ${type})`;
    if (element === 'String') {
      // One literal of hexadecimal texts separated by commas (never a hexadecimal digit), however long the list: an
      // expression per element would grow the statement's syntax tree past the engine's limit (stop-word lists).
      const hex = value.map((v) => literal(v, 'String').slice("unhex('".length, -"')".length));
      return `arrayMap(x -> unhex(x), splitByChar(',', '${hex.join(',')}'))`;
    }
    if (element === 'UUID') return `[${value.map((v) => literal(v, 'UUID')).join(',')}]`;
    // One array literal of checked numbers.
    return `CAST([${value.map((v) => literal(v, element).replace(/^CAST\((.*) AS \w+\)$/, '$1')).join(',')}] AS ${type})`;
  }
  if (type === 'String') {
    if (typeof value !== 'string') throw new StoreParamError(`Not a value of String: ${typeof value}`);
    return `unhex('${Buffer.from(value, 'utf8').toString('hex')}')`;
  }
  if (type === 'UUID') {
    if (typeof value !== 'string' || !UUID_TEXT.test(value))
      throw new StoreParamError(`Not a value of UUID: ${String(value).slice(0, 40)}`);
    return `toUUID(${literal(value, 'String')})`;
  }
  if (INTEGER.test(type)) return `CAST(${integerText(value, type)} AS ${type})`;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new StoreParamError(`Not a value of ${type}: ${String(value).slice(0, 40)}`);
  }
  // JavaScript's shortest text of a double reads back as the same double (ClickHouse parses it correctly rounded).
  return `CAST(${String(value)} AS ${type})`;
}

/**
 * The statement with each `{name:Type}` placeholder of `params` replaced by its value's expression (literal); a
 * placeholder without a value, or of a type not listed here, is refused.
 */
export function inlineParams(sql: string, params: Record<string, unknown>): string {
  return sql.replace(PLACEHOLDER, (_whole, name: string, type: string) => {
    if (!Object.hasOwn(params, name))
      throw new StoreParamError(`No value for the placeholder {${name}:${type}}`);
    if (!TYPE.test(type)) throw new StoreParamError(`Not a ClickHouse type the store binds: ${type}`);
    return literal(params[name], type);
  });
}
