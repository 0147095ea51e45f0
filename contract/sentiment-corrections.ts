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

export const sentimentAgreementParamsSchema = z.object({ id: workspaceIdSchema });

/**
 * How often the scoring agrees with the workspace's corrections, over the posts someone corrected (that still exist):
 * the model's label as is, and the label the workspace counts a post with when its own correction is set aside (the
 * latest correction of another post with the same text, else the model's): how far what the team corrected carries to
 * the posts it did not.
 */
export const sentimentAgreementResponseSchema = z.object({
  /** The posts corrected in the workspace. */
  corrected: z.number(),
  /** Of those, the posts whose model label is the correction's. */
  model_agreeing: z.number(),
  /** Of those, the posts whose label without their own correction (others of the same text applied) agrees. */
  adapted_agreeing: z.number(),
});
export type SentimentAgreementResponse = z.infer<typeof sentimentAgreementResponseSchema>;
