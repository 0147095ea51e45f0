// The body of every error answer of the internal and social APIs, shared by the SPA and the server.
import * as z from 'zod/mini';
import { figuresProgressSchema } from './figures';

/** A stable code for programs, a sentence for people, field errors on a 400. */
export const errorResponseSchema = z.object({
  error: z.string(),
  message: z.string(),
  fields: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
  /** On a 503 figures_preparing: how far the analytics store is (contract/figures.ts). */
  progress: z.optional(figuresProgressSchema),
});
