// Correcting a post's sentiment in a workspace (owners and managers): the label a person sets holds for that
// workspace only and counts in every figure of it instead of the lexicon's estimate (server/social/corrections.ts).
import * as z from 'zod/mini';
import { SENTIMENT_VALUES } from './social-posts';
import { workspaceIdSchema } from './workspaces';

/** The score a corrected post counts with in averages of sentiment. */
export const CORRECTED_SCORE = { positive: 1, neutral: 0, negative: -1 } as const;

/** The most corrections a workspace keeps: each dashboard statement carries them (server/social/corrections.ts). */
export const SENTIMENT_CORRECTIONS_LIMIT = 10_000;

export const sentimentCorrectionParamsSchema = z.object({
  id: workspaceIdSchema,
  /** A post's id, as the social API gives it. */
  postId: z.coerce.number().check(z.int(), z.positive(), z.lte(Number.MAX_SAFE_INTEGER)),
});

export const setSentimentBodySchema = z.object({ label: z.enum(SENTIMENT_VALUES) });

export const sentimentCorrectionResponseSchema = z.object({
  post_id: z.number(),
  /** The label that now counts in the workspace: the correction's, or the estimate's after an undo. */
  label: z.enum(SENTIMENT_VALUES),
  estimated_label: z.enum(SENTIMENT_VALUES),
  /** Null after an undo. */
  corrected_by: z.nullable(z.string()),
  corrected_at: z.nullable(z.string()),
});
export type SentimentCorrectionResponse = z.infer<typeof sentimentCorrectionResponseSchema>;
