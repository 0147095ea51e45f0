// Correcting a post's sentiment in a workspace (internal API, under /api): owners and managers set it and undo it
// (checked here on the server); what a correction changes is in corrections.ts beside this file.
import { sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  SENTIMENT_CORRECTIONS_LIMIT,
  sentimentAgreementParamsSchema,
  sentimentAgreementResponseSchema,
  sentimentCorrectionParamsSchema,
  sentimentCorrectionResponseSchema,
  setSentimentBodySchema,
} from '@contract/sentiment-corrections';
import type { Executor } from '@server/workspaces/access';
import { ApiError } from '@server/errors';
import { bearer, errorResponses } from '@server/openapi';
import {
  lockWorkspaceAccess,
  workspaceAccessOf,
  type WorkspaceRequirement,
} from '@server/workspaces/route-access';
import { personName } from '@server/users/person-name';
import { correctionAgreement, type SentimentLabel } from './corrections';

const tags = ['social'];
const members: WorkspaceRequirement = { from: 'params', minimum: 'viewer' };
const editors: WorkspaceRequirement = {
  from: 'params',
  minimum: 'manager',
  denied: () => new ApiError(403, 'forbidden', "Only owners and managers can correct a post's sentiment."),
};

/** The post's own (estimated) label and its near-duplicate key, or a 404 when there is no such post. */
async function estimated(
  tx: Executor,
  postId: number,
): Promise<{ label: SentimentLabel; textKey: string | null }> {
  const { rows } = await tx.execute<{ label: SentimentLabel; key: string | null }>(
    sql`SELECT p.sentiment_label AS label, p.text_key::text AS key FROM post_keys k
      JOIN posts p ON p.id = k.id AND p.posted_at = k.posted_at WHERE k.id = ${postId} LIMIT 1`,
  );
  if (!rows[0]) throw new ApiError(404, 'post_not_found', 'There is no such post.');
  return { label: rows[0].label, textKey: rows[0].key };
}

export const sentimentCorrectionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;
  const path = '/workspaces/:id/posts/:postId/sentiment';
  const schema = {
    tags,
    security: bearer,
    params: sentimentCorrectionParamsSchema,
    response: { 200: sentimentCorrectionResponseSchema, ...errorResponses(400, 403, 404, 409) },
  };

  const signedInRoutes: FastifyPluginAsyncZod = async (signedIn) => {
    signedIn.addHook('onRequest', app.requireUser);

    signedIn.get(
      '/workspaces/:id/sentiment-agreement',
      {
        config: { workspace: members },
        schema: {
          tags,
          security: bearer,
          summary: "How often sentiment agrees with the workspace's corrections (members)",
          description:
            'Over the posts corrected in the workspace (that still exist): how many the model labels as corrected ' +
            '(model_agreeing), and how many the workspace would count with the corrected label had that post not ' +
            'been corrected itself (adapted_agreeing: the latest correction of another post with the same text, ' +
            'else the model\'s label). Settings shows the first as "Agreement with your team\'s corrections".',
          params: sentimentAgreementParamsSchema,
          response: { 200: sentimentAgreementResponseSchema, ...errorResponses(403, 404) },
        },
      },
      async (request) => correctionAgreement(db, workspaceAccessOf(request).workspace.id),
    );

    signedIn.put(
      path,
      {
        config: { workspace: editors },
        schema: {
          ...schema,
          summary: "Correct a post's sentiment in the workspace (owners and managers)",
          description:
            'The label (positive, neutral or negative) holds in this workspace only: every figure of it counts the ' +
            'post with that label, and with 1, 0 or -1 in averages, instead of the estimate; the post shows who ' +
            'corrected it and when. It holds too for the posts with the same text (reposts and copies with other ' +
            'links, mentions, case, punctuation or spacing), past and future, unless they are corrected themselves ' +
            '(their sentiment_correction has inherited_from). Setting it again replaces the correction. ' +
            '404 post_not_found for a post that does not exist; 409 correction_limit past ' +
            `${SENTIMENT_CORRECTIONS_LIMIT} corrections in a workspace.`,
          body: setSentimentBodySchema,
        },
      },
      async (request) => {
        const { postId } = request.params;
        const { label } = request.body;
        return db.transaction(async (tx) => {
          // The workspace row stays locked until commit: concurrent corrections count one after another.
          const access = await lockWorkspaceAccess(tx, config, request);
          const workspaceId = access.workspace.id;
          const post = await estimated(tx, postId);
          const { rows: counted } = await tx.execute<{ n: number; has: boolean }>(
            sql`SELECT count(*)::int AS n, bool_or(post_id = ${postId}) AS has
              FROM sentiment_corrections WHERE workspace_id = ${workspaceId}`,
          );
          if (!counted[0]?.has && (counted[0]?.n ?? 0) >= SENTIMENT_CORRECTIONS_LIMIT) {
            throw new ApiError(
              409,
              'correction_limit',
              `A workspace can keep at most ${SENTIMENT_CORRECTIONS_LIMIT} sentiment corrections; undo some first.`,
            );
          }
          const { rows } = await tx.execute<{ by: string | null; at: string }>(
            sql`WITH c AS (
                INSERT INTO sentiment_corrections (workspace_id, post_id, label, corrected_by, corrected_at, text_key)
                VALUES (${workspaceId}, ${postId}, ${label}, ${request.userId}, now(), ${post.textKey}::uuid)
                ON CONFLICT (workspace_id, post_id) DO UPDATE
                  SET label = excluded.label, corrected_by = excluded.corrected_by,
                    corrected_at = excluded.corrected_at, text_key = excluded.text_key
                RETURNING corrected_by, corrected_at)
              SELECT ${personName} AS by,
                to_char(c.corrected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
              FROM c LEFT JOIN users ON users.id = c.corrected_by`,
          );
          return {
            post_id: postId,
            label,
            estimated_label: post.label,
            corrected_by: rows[0]!.by,
            corrected_at: rows[0]!.at,
          };
        });
      },
    );

    signedIn.delete(
      path,
      {
        config: { workspace: editors },
        schema: {
          ...schema,
          summary: "Undo a correction of a post's sentiment (owners and managers)",
          description:
            'The workspace counts the post with its estimate again, and its near-duplicates too (unless another ' +
            'correction of the same text holds for them). Undoing a post that has no correction changes ' +
            'nothing. 404 post_not_found for a post that does not exist.',
        },
      },
      async (request) => {
        const { postId } = request.params;
        return db.transaction(async (tx) => {
          const access = await lockWorkspaceAccess(tx, config, request);
          const { label: estimatedLabel } = await estimated(tx, postId);
          await tx.execute(
            sql`DELETE FROM sentiment_corrections
              WHERE workspace_id = ${access.workspace.id} AND post_id = ${postId}`,
          );
          return {
            post_id: postId,
            label: estimatedLabel,
            estimated_label: estimatedLabel,
            corrected_by: null,
            corrected_at: null,
          };
        });
      },
    );
  };
  await app.register(signedInRoutes);
};
