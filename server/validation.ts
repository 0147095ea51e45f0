// The validator of every route's schema (body, query string, path parameters, headers): fastify-type-provider-zod's,
// after one check that holds for every request whatever its schema says: no string, and no key, holds text
// PostgreSQL cannot store (contract/text.ts). A NUL or a lone surrogate is a 400 invalid_request naming the
// field, from the same errors the schemas give, before any schema, pattern or handler sees it.
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '@contract/text';

type Path = (string | number)[];

/** Where the value holds unstorable text: each string, and each object key, that does (depth-first). */
function unstorablePaths(value: unknown, path: Path = [], found: Path[] = []): Path[] {
  if (typeof value === 'string') {
    if (!isStorableText(value)) found.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => unstorablePaths(item, [...path, index], found));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorableText(key)) found.push([...path, key]);
      else unstorablePaths(item, [...path, key], found);
    }
  }
  return found;
}

const storableInput = z.unknown().check(
  z.superRefine((value, ctx) => {
    for (const path of unstorablePaths(value)) {
      ctx.issues.push({ code: 'custom', message: UNSTORABLE_TEXT_MESSAGE, path, input: value });
    }
  }),
);

export const validatorCompiler: FastifySchemaCompiler<z.core.$ZodType> = (route) => {
  // A schema that is not zod's (none here) keeps the library's handling unchanged.
  if (!(route.schema instanceof z.core.$ZodType)) return zodValidatorCompiler(route);
  return zodValidatorCompiler({ ...route, schema: z.pipe(storableInput, route.schema) });
};
