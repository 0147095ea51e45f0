import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { z } from 'zod/mini';
import { z as zc } from 'zod';
import { z as z3 } from 'zod/v3';
import type { $ZodErrorMap, $ZodRawIssue, $ZodType } from 'zod/v4/core';
import { installValidationMessages, validationMessage } from '@/lib/validation-messages';

/** The messages of a failing zod 4 parse (mini or classic schema). */
function messagesOf(schema: $ZodType, input: unknown): string[] {
  const result = z.safeParse(schema, input);
  if (result.success) throw new Error(`expected ${String(input)} to be rejected`);
  return result.error.issues.map((issue) => issue.message);
}

/** The messages of a failing zod v3 parse, with v3's own default (English) error map. */
function v3MessagesOf(schema: z3.ZodTypeAny, input: unknown): string[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`expected ${String(input)} to be rejected by zod v3`);
  return result.error.issues.map((issue) => issue.message);
}

interface Case {
  name: string;
  /** The zod 4 schema under test. */
  schema: $ZodType;
  /** The zod v3 equivalent, parsed with v3's real default messages to prove `expected` is v3's text. */
  v3?: z3.ZodTypeAny;
  input: unknown;
  expected: string;
}

enum Color {
  Red = 1,
  Green = 2,
}

const cases: Case[] = [
  // invalid_type
  {
    name: 'undefined is Required',
    schema: z.string(),
    v3: z3.string(),
    input: undefined,
    expected: 'Required',
  },
  {
    name: 'missing object key is Required',
    schema: z.object({ name: z.string() }),
    v3: z3.object({ name: z3.string() }),
    input: {},
    expected: 'Required',
  },
  {
    name: 'number for string',
    schema: z.string(),
    v3: z3.string(),
    input: 1,
    expected: 'Expected string, received number',
  },
  {
    name: 'NaN',
    schema: z.number(),
    v3: z3.number(),
    input: Number.NaN,
    expected: 'Expected number, received nan',
  },
  {
    name: 'string for number',
    schema: z.number(),
    v3: z3.number(),
    input: 'x',
    expected: 'Expected number, received string',
  },
  {
    name: 'null',
    schema: z.string(),
    v3: z3.string(),
    input: null,
    expected: 'Expected string, received null',
  },
  {
    name: 'array',
    schema: z.string(),
    v3: z3.string(),
    input: [],
    expected: 'Expected string, received array',
  },
  {
    name: 'object',
    schema: z.string(),
    v3: z3.string(),
    input: {},
    expected: 'Expected string, received object',
  },
  {
    name: 'boolean',
    schema: z.string(),
    v3: z3.string(),
    input: true,
    expected: 'Expected string, received boolean',
  },
  {
    name: 'bigint',
    schema: z.string(),
    v3: z3.string(),
    input: 1n,
    expected: 'Expected string, received bigint',
  },
  {
    name: 'symbol',
    schema: z.string(),
    v3: z3.string(),
    input: Symbol('s'),
    expected: 'Expected string, received symbol',
  },
  {
    name: 'function',
    schema: z.string(),
    v3: z3.string(),
    input: () => 1,
    expected: 'Expected string, received function',
  },
  {
    name: 'date',
    schema: z.string(),
    v3: z3.string(),
    input: new Date(0),
    expected: 'Expected string, received date',
  },
  {
    name: 'map',
    schema: z.string(),
    v3: z3.string(),
    input: new Map(),
    expected: 'Expected string, received map',
  },
  {
    name: 'set',
    schema: z.string(),
    v3: z3.string(),
    input: new Set(),
    expected: 'Expected string, received set',
  },
  {
    name: 'promise',
    schema: z.string(),
    v3: z3.string(),
    input: { then: () => undefined, catch: () => undefined },
    expected: 'Expected string, received promise',
  },
  {
    name: 'Infinity',
    schema: z.number(),
    v3: z3.number().finite(),
    input: Infinity,
    expected: 'Number must be finite',
  },
  {
    name: '-Infinity',
    schema: z.number(),
    v3: z3.number().finite(),
    input: -Infinity,
    expected: 'Number must be finite',
  },
  {
    name: 'invalid Date',
    schema: z.date(),
    v3: z3.date(),
    input: new Date('nope'),
    expected: 'Invalid date',
  },
  {
    name: 'string for date',
    schema: z.date(),
    v3: z3.date(),
    input: 'x',
    expected: 'Expected date, received string',
  },
  {
    name: 'float for int',
    schema: z.int(),
    v3: z3.number().int(),
    input: 1.5,
    expected: 'Expected integer, received float',
  },
  {
    name: 'string for int',
    schema: z.int(),
    v3: z3.number().int(),
    input: 'x',
    expected: 'Expected number, received string',
  },
  {
    name: 'number for bigint',
    schema: z.bigint(),
    v3: z3.bigint(),
    input: 1,
    expected: 'Expected bigint, received number',
  },
  {
    name: 'string for boolean',
    schema: z.boolean(),
    v3: z3.boolean(),
    input: 'x',
    expected: 'Expected boolean, received string',
  },
  {
    name: 'number for null',
    schema: z.null(),
    v3: z3.null(),
    input: 1,
    expected: 'Expected null, received number',
  },
  {
    name: 'number for nan',
    schema: z.nan(),
    v3: z3.nan(),
    input: 1,
    expected: 'Expected nan, received number',
  },
  {
    name: 'tuple is an array',
    schema: z.tuple([z.string()]),
    v3: z3.tuple([z3.string()]),
    input: {},
    expected: 'Expected array, received object',
  },
  {
    name: 'record is an object',
    schema: z.record(z.string(), z.string()),
    v3: z3.record(z3.string(), z3.string()),
    input: 1,
    expected: 'Expected object, received number',
  },
  {
    name: 'instanceof',
    schema: z.instanceof(Date),
    v3: z3.instanceof(Date),
    input: 1,
    expected: 'Input not instance of Date',
  },

  // unrecognized_keys
  {
    name: 'unrecognized keys',
    schema: z.strictObject({}),
    v3: z3.object({}).strict(),
    input: { a: 1, b: 2 },
    expected: "Unrecognized key(s) in object: 'a', 'b'",
  },

  // invalid_union
  {
    name: 'union',
    schema: z.union([z.string(), z.number()]),
    v3: z3.union([z3.string(), z3.number()]),
    input: true,
    expected: 'Invalid input',
  },
  {
    name: 'discriminated union',
    schema: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('a') }),
      z.object({ kind: z.literal('b') }),
    ]),
    v3: z3.discriminatedUnion('kind', [
      z3.object({ kind: z3.literal('a') }),
      z3.object({ kind: z3.literal('b') }),
    ]),
    input: { kind: 'c' },
    expected: "Invalid discriminator value. Expected 'a' | 'b'",
  },

  // invalid_value
  {
    name: 'enum',
    schema: z.enum(['a', 'b']),
    v3: z3.enum(['a', 'b']),
    input: 'c',
    expected: "Invalid enum value. Expected 'a' | 'b', received 'c'",
  },
  {
    name: 'enum, undefined',
    schema: z.enum(['a', 'b']),
    v3: z3.enum(['a', 'b']),
    input: undefined,
    expected: 'Required',
  },
  {
    name: 'enum, wrong type',
    schema: z.enum(['a', 'b']),
    v3: z3.enum(['a', 'b']),
    input: 1,
    expected: "Expected 'a' | 'b', received number",
  },
  {
    name: 'numeric native enum',
    schema: z.enum(Color),
    v3: z3.nativeEnum(Color),
    input: 3,
    expected: "Invalid enum value. Expected 1 | 2, received '3'",
  },
  {
    name: 'string literal',
    schema: z.literal('x'),
    v3: z3.literal('x'),
    input: 'y',
    expected: 'Invalid literal value, expected "x"',
  },
  {
    name: 'number literal',
    schema: z.literal(3),
    v3: z3.literal(3),
    input: 2,
    expected: 'Invalid literal value, expected 3',
  },
  {
    name: 'bigint literal',
    schema: z.literal(1n),
    v3: z3.literal(1n),
    input: 2n,
    expected: 'Invalid literal value, expected "1"',
  },
  {
    name: 'several literals (zod 4 only)',
    schema: z.literal(['x', 'y']),
    input: 'z',
    expected: "Invalid enum value. Expected 'x' | 'y', received 'z'",
  },

  // invalid_format
  { name: 'email', schema: z.email(), v3: z3.string().email(), input: 'x', expected: 'Invalid email' },
  { name: 'url', schema: z.url(), v3: z3.string().url(), input: 'x', expected: 'Invalid url' },
  { name: 'uuid', schema: z.uuid(), v3: z3.string().uuid(), input: 'x', expected: 'Invalid uuid' },
  { name: 'guid', schema: z.guid(), v3: z3.string().uuid(), input: 'x', expected: 'Invalid uuid' },
  { name: 'cuid', schema: z.cuid(), v3: z3.string().cuid(), input: '!', expected: 'Invalid cuid' },
  { name: 'cuid2', schema: z.cuid2(), v3: z3.string().cuid2(), input: '!', expected: 'Invalid cuid2' },
  { name: 'ulid', schema: z.ulid(), v3: z3.string().ulid(), input: '!', expected: 'Invalid ulid' },
  { name: 'nanoid', schema: z.nanoid(), v3: z3.string().nanoid(), input: '!', expected: 'Invalid nanoid' },
  {
    name: 'datetime',
    schema: z.iso.datetime(),
    v3: z3.string().datetime(),
    input: 'x',
    expected: 'Invalid datetime',
  },
  { name: 'date string', schema: z.iso.date(), v3: z3.string().date(), input: 'x', expected: 'Invalid date' },
  { name: 'time', schema: z.iso.time(), v3: z3.string().time(), input: 'x', expected: 'Invalid time' },
  {
    name: 'duration',
    schema: z.iso.duration(),
    v3: z3.string().duration(),
    input: 'x',
    expected: 'Invalid duration',
  },
  { name: 'ipv4', schema: z.ipv4(), v3: z3.string().ip(), input: 'x', expected: 'Invalid ip' },
  { name: 'ipv6', schema: z.ipv6(), v3: z3.string().ip(), input: 'x', expected: 'Invalid ip' },
  { name: 'cidr', schema: z.cidrv4(), v3: z3.string().cidr(), input: 'x', expected: 'Invalid cidr' },
  { name: 'emoji', schema: z.emoji(), v3: z3.string().emoji(), input: 'x', expected: 'Invalid emoji' },
  { name: 'base64', schema: z.base64(), v3: z3.string().base64(), input: '!', expected: 'Invalid base64' },
  { name: 'jwt', schema: z.jwt(), v3: z3.string().jwt(), input: 'x', expected: 'Invalid jwt' },
  {
    name: 'regex',
    schema: z.string().check(z.regex(/^a/)),
    v3: z3.string().regex(/^a/),
    input: 'b',
    expected: 'Invalid',
  },
  {
    name: 'starts with',
    schema: z.string().check(z.startsWith('ab')),
    v3: z3.string().startsWith('ab'),
    input: 'x',
    expected: 'Invalid input: must start with "ab"',
  },
  {
    name: 'ends with',
    schema: z.string().check(z.endsWith('yz')),
    v3: z3.string().endsWith('yz'),
    input: 'x',
    expected: 'Invalid input: must end with "yz"',
  },
  {
    name: 'includes',
    schema: z.string().check(z.includes('mm')),
    v3: z3.string().includes('mm'),
    input: 'x',
    expected: 'Invalid input: must include "mm"',
  },
  {
    name: 'includes at a position',
    schema: z.string().check(z.includes('a', { position: 2 })),
    v3: z3.string().includes('a', { position: 2 }),
    input: 'abc',
    expected: 'Invalid input: must include "a" at one or more positions greater than or equal to 2',
  },

  // too_small
  {
    name: 'string min',
    schema: z.string().check(z.minLength(3)),
    v3: z3.string().min(3),
    input: 'a',
    expected: 'String must contain at least 3 character(s)',
  },
  {
    name: 'string length, too short',
    schema: z.string().check(z.length(3)),
    v3: z3.string().length(3),
    input: 'a',
    expected: 'String must contain exactly 3 character(s)',
  },
  {
    name: 'number gt',
    schema: z.number().check(z.gt(3)),
    v3: z3.number().gt(3),
    input: 1,
    expected: 'Number must be greater than 3',
  },
  {
    name: 'number gte',
    schema: z.number().check(z.gte(3)),
    v3: z3.number().gte(3),
    input: 1,
    expected: 'Number must be greater than or equal to 3',
  },
  {
    name: 'int gte',
    schema: z.int().check(z.gte(3)),
    v3: z3.number().int().gte(3),
    input: 1,
    expected: 'Number must be greater than or equal to 3',
  },
  {
    name: 'bigint gte',
    schema: z.bigint().check(z.gte(3n)),
    v3: z3.bigint().gte(3n),
    input: 1n,
    expected: 'Number must be greater than or equal to 3',
  },
  {
    name: 'array min',
    schema: z.array(z.string()).check(z.minLength(2)),
    v3: z3.array(z3.string()).min(2),
    input: [],
    expected: 'Array must contain at least 2 element(s)',
  },
  {
    name: 'array length, too short',
    schema: z.array(z.string()).check(z.length(2)),
    v3: z3.array(z3.string()).length(2),
    input: [],
    expected: 'Array must contain exactly 2 element(s)',
  },
  {
    name: 'tuple, too short',
    schema: z.tuple([z.string(), z.string()]),
    v3: z3.tuple([z3.string(), z3.string()]),
    input: ['a'],
    expected: 'Array must contain at least 2 element(s)',
  },
  {
    name: 'date min',
    schema: z.date().check(z.gte(new Date(0))),
    v3: z3.date().min(new Date(0)),
    input: new Date(-1),
    expected: `Date must be greater than or equal to ${new Date(0)}`,
  },
  {
    name: 'date gt (zod 4 only)',
    schema: z.date().check(z.gt(new Date(0))),
    input: new Date(0),
    expected: `Date must be greater than ${new Date(0)}`,
  },
  {
    name: 'set min: v3 had no message for sets',
    schema: z.set(z.string()).check(z.minSize(2)),
    v3: z3.set(z3.string()).min(2),
    input: new Set(),
    expected: 'Invalid input',
  },

  // too_big
  {
    name: 'string max',
    schema: z.string().check(z.maxLength(1)),
    v3: z3.string().max(1),
    input: 'ab',
    expected: 'String must contain at most 1 character(s)',
  },
  {
    name: 'string length, too long',
    schema: z.string().check(z.length(1)),
    v3: z3.string().length(1),
    input: 'ab',
    expected: 'String must contain exactly 1 character(s)',
  },
  {
    name: 'number lt',
    schema: z.number().check(z.lt(1)),
    v3: z3.number().lt(1),
    input: 2,
    expected: 'Number must be less than 1',
  },
  {
    name: 'number lte',
    schema: z.number().check(z.lte(1)),
    v3: z3.number().lte(1),
    input: 2,
    expected: 'Number must be less than or equal to 1',
  },
  {
    name: 'bigint lte (v3 says BigInt here)',
    schema: z.bigint().check(z.lte(3n)),
    v3: z3.bigint().lte(3n),
    input: 5n,
    expected: 'BigInt must be less than or equal to 3',
  },
  {
    name: 'array max',
    schema: z.array(z.number()).check(z.maxLength(1)),
    v3: z3.array(z3.number()).max(1),
    input: [1, 2],
    expected: 'Array must contain at most 1 element(s)',
  },
  {
    name: 'array length, too long',
    schema: z.array(z.number()).check(z.length(1)),
    v3: z3.array(z3.number()).length(1),
    input: [1, 2],
    expected: 'Array must contain exactly 1 element(s)',
  },
  {
    name: 'date max',
    schema: z.date().check(z.lte(new Date(0))),
    v3: z3.date().max(new Date(0)),
    input: new Date(1),
    expected: `Date must be smaller than or equal to ${new Date(0)}`,
  },
  {
    name: 'set max: v3 had no message for sets',
    schema: z.set(z.string()).check(z.maxSize(0)),
    v3: z3.set(z3.string()).max(0),
    input: new Set(['a']),
    expected: 'Invalid input',
  },

  // not_multiple_of
  {
    name: 'multiple of',
    schema: z.number().check(z.multipleOf(3)),
    v3: z3.number().multipleOf(3),
    input: 4,
    expected: 'Number must be a multiple of 3',
  },
  {
    name: 'bigint multiple of',
    schema: z.bigint().check(z.multipleOf(3n)),
    v3: z3.bigint().multipleOf(3n),
    input: 4n,
    expected: 'Number must be a multiple of 3',
  },

  // custom
  {
    name: 'refine',
    schema: z.string().check(z.refine(() => false)),
    v3: z3.string().refine(() => false),
    input: 'a',
    expected: 'Invalid input',
  },
  {
    name: 'custom',
    schema: z.custom(() => false),
    v3: z3.custom(() => false),
    input: 1,
    expected: 'Invalid input',
  },

  // invalid_key: v3 reported the key schema's own issue
  {
    name: 'record key',
    schema: z.record(z.string().check(z.minLength(2)), z.number()),
    v3: z3.record(z3.string().min(2), z3.number()),
    input: { a: 1 },
    expected: 'String must contain at least 2 character(s)',
  },
];

let previousCustomError: $ZodErrorMap | undefined;

beforeAll(() => {
  previousCustomError = z.config().customError;
  installValidationMessages();
});

afterAll(() => {
  z.config({ customError: previousCustomError });
});

describe('installValidationMessages', () => {
  it('installs validationMessage as the global zod 4 error map, shared by zod/mini and classic zod', () => {
    expect(z.config().customError).toBe(validationMessage);
    expect(zc.config()).toBe(z.config());
  });
});

describe('validationMessage on zod/mini schemas', () => {
  it.each(cases)('$name', ({ schema, input, expected }) => {
    expect(messagesOf(schema, input)).toEqual([expected]);
  });

  it.each(cases.filter((c) => c.v3 !== undefined))(
    '$name: the expectation is zod v3’s own default',
    ({ v3, input, expected }) => {
      if (!v3) throw new Error('unreachable');
      expect(v3MessagesOf(v3, input)).toEqual([expected]);
    },
  );

  it('reports each issue of a parse', () => {
    const schema = z.object({ name: z.string(), age: z.number().check(z.gte(18)) });
    expect(messagesOf(schema, { age: 3 })).toEqual([
      'Required',
      'Number must be greater than or equal to 18',
    ]);
  });
});

describe('validationMessage on classic zod schemas (global config)', () => {
  it('replaces classic zod’s English locale messages', () => {
    expect(messagesOf(zc.string().min(3), 'a')).toEqual(['String must contain at least 3 character(s)']);
    expect(messagesOf(zc.object({ n: zc.number() }), {})).toEqual(['Required']);
    expect(messagesOf(zc.number(), 'x')).toEqual(['Expected number, received string']);
    expect(messagesOf(zc.email(), 'x')).toEqual(['Invalid email']);
    expect(messagesOf(zc.enum(['a', 'b']), 'c')).toEqual([
      "Invalid enum value. Expected 'a' | 'b', received 'c'",
    ]);
    expect(zc.string().safeParse(1).error?.issues[0]?.message).toBe('Expected string, received number');
  });
});

describe('explicit messages still win over the global map', () => {
  it('uses a schema’s own message', () => {
    expect(messagesOf(z.string('Name must be text'), 1)).toEqual(['Name must be text']);
    expect(messagesOf(z.string({ error: 'Name must be text' }), 1)).toEqual(['Name must be text']);
  });

  it('uses a check’s own message', () => {
    expect(messagesOf(z.string().check(z.minLength(3, 'Too short')), 'a')).toEqual(['Too short']);
    expect(messagesOf(z.string().check(z.minLength(3, { error: () => 'Too short!' })), 'a')).toEqual([
      'Too short!',
    ]);
    expect(messagesOf(z.string().check(z.refine(() => false, 'Nope')), 'a')).toEqual(['Nope']);
    expect(messagesOf(z.email({ error: 'Bad email' }), 'x')).toEqual(['Bad email']);
  });

  it('uses a message pushed with the issue', () => {
    const schema = z.string().check((ctx) => {
      ctx.issues.push({ code: 'custom', message: 'Pushed', input: ctx.value });
    });
    expect(messagesOf(schema, 'a')).toEqual(['Pushed']);
  });

  it('falls back to the global map when a schema’s error function returns undefined', () => {
    const schema = z.string({
      error: (issue) => (issue.input === undefined ? 'Name is required' : undefined),
    });
    expect(messagesOf(schema, undefined)).toEqual(['Name is required']);
    expect(messagesOf(schema, 1)).toEqual(['Expected string, received number']);
  });

  it('uses a per-parse error map', () => {
    const result = z.safeParse(z.string(), 1, { error: () => 'Per parse' });
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(['Per parse']);
  });

  it('uses a classic schema’s own message', () => {
    expect(messagesOf(zc.string().min(3, 'Classic own'), 'a')).toEqual(['Classic own']);
    expect(messagesOf(zc.number({ error: 'Classic number' }), 'x')).toEqual(['Classic number']);
  });
});

describe('validationMessage branches the public checks cannot reach', () => {
  const issues: [$ZodRawIssue, string][] = [
    [
      { code: 'too_small', origin: 'string', minimum: 3, inclusive: false, input: 'a' },
      'String must contain over 3 character(s)',
    ],
    [
      { code: 'too_small', origin: 'array', minimum: 3, inclusive: false, input: [] },
      'Array must contain more than 3 element(s)',
    ],
    [
      { code: 'too_small', origin: 'number', minimum: 5, exact: true, input: 1 },
      'Number must be exactly equal to 5',
    ],
    [
      { code: 'too_small', origin: 'date', minimum: 0, exact: true, input: 1 },
      `Date must be exactly equal to ${new Date(0)}`,
    ],
    [
      { code: 'too_big', origin: 'string', maximum: 3, inclusive: false, input: 'abcd' },
      'String must contain under 3 character(s)',
    ],
    [
      { code: 'too_big', origin: 'array', maximum: 3, inclusive: false, input: [] },
      'Array must contain less than 3 element(s)',
    ],
    [{ code: 'too_big', origin: 'number', maximum: 5, exact: true, input: 6 }, 'Number must be exactly 5'],
    [
      { code: 'too_big', origin: 'date', maximum: 0, inclusive: false, input: 1 },
      `Date must be smaller than ${new Date(0)}`,
    ],
    [{ code: 'too_big', origin: 'file', maximum: 5, inclusive: true, input: 6 }, 'Invalid input'],
    [{ code: 'invalid_format', format: 'lowercase', input: 'A' }, 'Invalid lowercase'],
    [
      { code: 'invalid_type', expected: 'string', input: Object.create(null) as unknown },
      'Expected string, received object',
    ],
  ];

  it.each(issues)('%o', (issue, expected) => {
    expect(validationMessage(issue)).toBe(expected);
  });
});
