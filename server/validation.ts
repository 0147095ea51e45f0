// The validator of every route's schema (body, query string, path parameters, headers): fastify-type-provider-zod's,
// after two checks that hold for every request whatever its schema says: the value nests at most MAX_JSON_DEPTH
// levels deep, and no string, and no key, holds text PostgreSQL cannot store (contract/text.ts). A deeper body, a NUL
// or a lone surrogate is a 400 invalid_request (naming the field), from the same errors the schemas give, before any
// schema, pattern or handler sees it. The walk keeps its own stack: a body nested 100,000 levels deep (200 KB of
// brackets, under the body limit) used to overflow the call stack of a recursive one (a RangeError, a 500).
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '@contract/text';

type Path = (string | number)[];

/**
 * How deep a request's value may nest (an object or array is one level; its members are the next). No request the
 * contract describes comes near it (a dashboard's refinement bound, body > refine > item > values > bound, is five).
 */
export const MAX_JSON_DEPTH = 64;
export const TOO_DEEP_MESSAGE = `Must not nest more than ${MAX_JSON_DEPTH} levels deep`;

interface Problem {
  path: Path;
  message: string;
}

/**
 * What the value must not hold, depth-first in the value's order: each string and each object key holding unstorable
 * text; or, alone, the first object or array deeper than MAX_JSON_DEPTH (the walk stops there). Iterative: the stack
 * it keeps is bounded by the depth limit times the widest level, never by the call stack.
 */
function problems(value: unknown): Problem[] {
  const found: Problem[] = [];
  const stack: { value: unknown; path: Path }[] = [{ value, path: [] }];
  while (stack.length) {
    const { value: item, path } = stack.pop()!;
    if (typeof item === 'string') {
      if (!isStorableText(item)) found.push({ path, message: UNSTORABLE_TEXT_MESSAGE });
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (path.length >= MAX_JSON_DEPTH) return [{ path: [], message: TOO_DEEP_MESSAGE }];
    const children: { value: unknown; path: Path }[] = [];
    if (Array.isArray(item)) {
      item.forEach((child, index) => children.push({ value: child, path: [...path, index] }));
    } else {
      for (const [key, child] of Object.entries(item)) {
        if (!isStorableText(key)) found.push({ path: [...path, key], message: UNSTORABLE_TEXT_MESSAGE });
        else children.push({ value: child, path: [...path, key] });
      }
    }
    // Reversed, so that the first child is taken next: the issues come in the value's order.
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]!);
  }
  return found;
}

const storableInput = z.unknown().check(
  z.superRefine((value, ctx) => {
    for (const { path, message } of problems(value)) {
      ctx.issues.push({ code: 'custom', message, path, input: value });
    }
  }),
);

export const validatorCompiler: FastifySchemaCompiler<z.core.$ZodType> = (route) => {
  // A schema that is not zod's (none here) keeps the library's handling unchanged.
  if (!(route.schema instanceof z.core.$ZodType)) return zodValidatorCompiler(route);
  return zodValidatorCompiler({ ...route, schema: z.pipe(storableInput, route.schema) });
};
