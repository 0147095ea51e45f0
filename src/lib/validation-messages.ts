// Zod v3's default English validation messages, reproduced on top of zod 4 (the spec shows these texts to users).
// Source of truth: zod v3's `locales/en` error map (shipped as `zod/v3/locales/en.js`), mapped onto zod 4's issue shapes.
import { z } from 'zod/mini';
import type { $ZodErrorMap, $ZodRawIssue } from 'zod/v4/core';

type Primitive = string | number | bigint | boolean | symbol | null | undefined;

/** v3's `util.joinValues`: strings in single quotes, everything else as is. */
function joinValues(values: readonly Primitive[], separator = ' | '): string {
  return values.map((value) => (typeof value === 'string' ? `'${value}'` : String(value))).join(separator);
}

/** v3's `JSON.stringify(value, util.jsonStringifyReplacer)`: bigints become strings. */
function stringifyLiteral(value: Primitive): string {
  // JSON.stringify returns undefined (not a string) for undefined and symbols; v3 interpolated that as "undefined".
  return String(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

/** v3's `getParsedType`: the "received" names of its invalid_type messages. */
function parsedType(data: unknown): string {
  switch (typeof data) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return 'string';
    case 'number':
      return Number.isNaN(data) ? 'nan' : 'number';
    case 'boolean':
      return 'boolean';
    case 'function':
      return 'function';
    case 'bigint':
      return 'bigint';
    case 'symbol':
      return 'symbol';
    case 'object': {
      if (Array.isArray(data)) return 'array';
      if (data === null) return 'null';
      const thenable = data as { then?: unknown; catch?: unknown };
      if (typeof thenable.then === 'function' && typeof thenable.catch === 'function') return 'promise';
      if (data instanceof Map) return 'map';
      if (data instanceof Set) return 'set';
      if (data instanceof Date) return 'date';
      return 'object';
    }
    default:
      return 'unknown';
  }
}

/** The definition of the schema or check that raised the issue, as a plain record (its shape depends on the schema). */
function sourceDef(issue: $ZodRawIssue): Record<string, unknown> | undefined {
  const def: unknown = issue.inst?._zod.def;
  return typeof def === 'object' && def !== null ? (def as Record<string, unknown>) : undefined;
}

/** zod 4 names that v3 spelled differently in `Expected ${expected}`. */
const EXPECTED_V3: Readonly<Record<string, string>> = { tuple: 'array', record: 'object' };

/** zod 4 string formats whose v3 validation name differs (v3's message was `Invalid ${validation}`). */
const FORMAT_V3: Readonly<Record<string, string>> = {
  ipv4: 'ip',
  ipv6: 'ip',
  cidrv4: 'cidr',
  cidrv6: 'cidr',
  guid: 'uuid',
};

function sizeKind(origin: string): string {
  return origin === 'int' ? 'number' : origin;
}

/** zod 4 error map (`z.config({ customError })`) returning zod v3's default English message for each issue. */
export function validationMessage(issue: $ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      const { input, expected } = issue;
      // z.instanceof(): v3 built it on z.custom() with this message (and no "Required" for undefined).
      if (sourceDef(issue)?.type === 'custom') return `Input not instance of ${expected}`;
      if (input === undefined) return 'Required';
      if ((expected === 'number' || expected === 'int') && typeof input === 'number') {
        // v3's z.number() let ±Infinity through to .finite(); zod 4 rejects it as a type error.
        if (input === Infinity || input === -Infinity) return 'Number must be finite';
        if (expected === 'int' && !Number.isNaN(input)) return 'Expected integer, received float';
      }
      // v3 reported an unparseable Date as its own issue code.
      if (expected === 'date' && input instanceof Date) return 'Invalid date';
      const v3Expected = expected === 'int' ? 'number' : (EXPECTED_V3[expected] ?? expected);
      return `Expected ${v3Expected}, received ${parsedType(input)}`;
    }

    case 'unrecognized_keys':
      return `Unrecognized key(s) in object: ${joinValues(issue.keys, ', ')}`;

    case 'invalid_union':
      // z.discriminatedUnion() with an unknown discriminator value was its own issue code in v3.
      if (issue.discriminator !== undefined && 'options' in issue && Array.isArray(issue.options)) {
        return `Invalid discriminator value. Expected ${joinValues(issue.options)}`;
      }
      return 'Invalid input';

    case 'invalid_value': {
      const { values, input } = issue;
      const type = sourceDef(issue)?.type;
      if (type === 'literal' && values.length === 1) {
        return `Invalid literal value, expected ${stringifyLiteral(values[0])}`;
      }
      if (type === 'enum') {
        // v3's z.enum() / z.nativeEnum() type-checked first: undefined was "Required", a wrong type an invalid_type.
        const allowsNumbers = values.some((value) => typeof value === 'number');
        if (input === undefined) return 'Required';
        if (typeof input !== 'string' && !(allowsNumbers && typeof input === 'number')) {
          return `Expected ${joinValues(values)}, received ${parsedType(input)}`;
        }
      }
      return `Invalid enum value. Expected ${joinValues(values)}, received '${String(input)}'`;
    }

    case 'invalid_format':
      switch (issue.format) {
        case 'regex':
          return 'Invalid';
        case 'starts_with':
          return `Invalid input: must start with "${String(issue.prefix)}"`;
        case 'ends_with':
          return `Invalid input: must end with "${String(issue.suffix)}"`;
        case 'includes': {
          const message = `Invalid input: must include "${String(issue.includes)}"`;
          const position = sourceDef(issue)?.position;
          return typeof position === 'number'
            ? `${message} at one or more positions greater than or equal to ${position}`
            : message;
        }
        default:
          return `Invalid ${FORMAT_V3[issue.format] ?? issue.format}`;
      }

    case 'too_small': {
      const { minimum, inclusive, exact } = issue;
      switch (sizeKind(issue.origin)) {
        case 'array':
          return `Array must contain ${exact ? 'exactly' : inclusive ? 'at least' : 'more than'} ${minimum} element(s)`;
        case 'string':
          return `String must contain ${exact ? 'exactly' : inclusive ? 'at least' : 'over'} ${minimum} character(s)`;
        case 'number':
        case 'bigint':
          return `Number must be ${exact ? 'exactly equal to ' : inclusive ? 'greater than or equal to ' : 'greater than '}${minimum}`;
        case 'date':
          return `Date must be ${exact ? 'exactly equal to ' : inclusive ? 'greater than or equal to ' : 'greater than '}${new Date(Number(minimum))}`;
        default:
          // v3 had no branch for sets (or anything else) here.
          return 'Invalid input';
      }
    }

    case 'too_big': {
      const { maximum, inclusive, exact } = issue;
      switch (sizeKind(issue.origin)) {
        case 'array':
          return `Array must contain ${exact ? 'exactly' : inclusive ? 'at most' : 'less than'} ${maximum} element(s)`;
        case 'string':
          return `String must contain ${exact ? 'exactly' : inclusive ? 'at most' : 'under'} ${maximum} character(s)`;
        case 'number':
          return `Number must be ${exact ? 'exactly' : inclusive ? 'less than or equal to' : 'less than'} ${maximum}`;
        case 'bigint':
          return `BigInt must be ${exact ? 'exactly' : inclusive ? 'less than or equal to' : 'less than'} ${maximum}`;
        case 'date':
          return `Date must be ${exact ? 'exactly' : inclusive ? 'smaller than or equal to' : 'smaller than'} ${new Date(Number(maximum))}`;
        default:
          return 'Invalid input';
      }
    }

    case 'not_multiple_of':
      return `Number must be a multiple of ${issue.divisor}`;

    case 'invalid_key':
    case 'invalid_element':
      // v3 reported the key's / element's own issues directly; zod 4 wraps them (already finalized) in one issue.
      return issue.issues[0]?.message ?? 'Invalid input';

    default:
      return 'Invalid input';
  }
}

// Type check only: the function is a valid zod 4 error map.
validationMessage satisfies $ZodErrorMap;

/**
 * Makes `validationMessage` zod's global error map. zod applies, first match wins: the issue's own message, the
 * check's / schema's `error` (or message argument), the per-parse `{ error }`, then this map, then the locale.
 */
export function installValidationMessages(): void {
  // zod 4 core config is one global object (globalThis.__zod_globalConfig): this covers zod/mini and classic zod alike.
  z.config({ customError: validationMessage });
}
