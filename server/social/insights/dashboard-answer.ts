// A dashboard's answer, from the request's resolved scope to the bytes sent: the answer cache first (answer-cache.ts),
// else computed in an admission slot where the reads go (server/social/reads.ts) and decorated with what the answer
// says beyond the computation — the plan's history clip, a lagging replica's data_as_of, the next page's cursor sealed
// for the client — then serialized once and sent as the bytes made once (answer-bytes.ts). The paged lists' cursors
// are opened here too, so a cursor is sealed and opened in one place.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '@server/db/database';
import { clientGone, type Admission } from '../admission';
import type { CursorSeal } from '../cursor-seal';
import { leaveLane } from '../lane';
import { sayWhereRead, type ReadRouter } from '../reads';
import { answerKey, type AnswerCache } from './answer-cache';
import { sendAnswer } from './answer-bytes';
import type { HistoryClip, InsightScope } from './request';

/** What every dashboard's answer may carry beyond its figures (the contract's response schemas have these keys). */
export interface AnswerDecoration {
  history_clip?: HistoryClip | null;
  data_as_of?: string | null;
  /** The paged lists': the next page's cursor, sealed for the client (null on the last page). */
  next_cursor?: string | null;
}

/** One dashboard request, its scope resolved. */
export interface DashboardAsk<T extends AnswerDecoration> {
  /** The route's address: part of the cache key. */
  endpoint: string;
  workspaceId: string;
  context: InsightScope;
  /** What the body holds beyond the scope (sort, limit, the opened cursor): part of the cache key. */
  extra: Record<string, unknown>;
  /** The figures, read on the pool or replica `db` belongs to. */
  compute: (db: Db) => Promise<T>;
  /** The route's serializer for its 200 (the schema's encoding, then JSON). */
  serialize: (answer: T) => string;
}

interface DashboardAnswerDeps {
  cache: AnswerCache;
  admission: Admission;
  reads: ReadRouter;
  cursors: CursorSeal;
  /**
   * Per dashboard address, what its answer says beside its figures that is read per request rather than computed with
   * them (the overview's sentiment rescan: ../analytics.ts): merged into the answer and part of its cache key, so a
   * cached answer never outlives its note.
   */
  notes?: Readonly<Record<string, () => Promise<Record<string, unknown> | null>>>;
}

/**
 * The answer as sent: the plan's clip and the sealed cursor are the same for every request of the key (it holds both
 * the clip and the workspace), and a lagging replica's data_as_of is on an answer that is never kept.
 */
function decorate<T extends AnswerDecoration>(
  answer: T,
  context: InsightScope,
  asOf: Date | null,
  seal: (cursor: string) => string,
): T {
  const decorated: T = { ...answer };
  if (context.historyClip) decorated.history_clip = context.historyClip;
  if (asOf) decorated.data_as_of = asOf.toISOString();
  if (typeof answer.next_cursor === 'string') decorated.next_cursor = seal(answer.next_cursor);
  return decorated;
}

export function dashboardAnswers({ cache, admission, reads, cursors, notes }: DashboardAnswerDeps) {
  return {
    /** A paged list's body with its sealed cursor opened (400 invalid_cursor for one not handed out here). */
    openCursor<B extends { workspace_id: string; cursor?: string }>(body: B, workspaceId: string): B {
      return body.cursor === undefined ? body : { ...body, cursor: cursors.open(body.cursor, workspaceId) };
    },

    /**
     * Sends the answer to `ask`: from the answer cache when the same request was answered at the current corpus
     * version, else computed in an admission slot (503 busy with Retry-After when the queue is full), decorated and
     * serialized once; a computation of the same answer already under way is waited for.
     */
    async send<T extends AnswerDecoration>(
      request: FastifyRequest,
      reply: FastifyReply,
      ask: DashboardAsk<T>,
    ): Promise<FastifyReply> {
      const { workspaceId, context } = ask;
      const note = (await notes?.[ask.endpoint]?.()) ?? null;
      const read = await cache.answer(
        answerKey(workspaceId, ask.endpoint, context, note ? { ...ask.extra, note } : ask.extra),
        async (version) => {
          const computed = await admission.run(
            () => reads.read((db) => ask.compute(db), version),
            clientGone(reply.raw),
          );
          const answer = decorate({ ...computed.value, ...note } as T, context, computed.asOf, (cursor) =>
            cursors.seal(cursor, workspaceId),
          );
          return { ...computed, value: Buffer.from(ask.serialize(answer)) };
        },
        // Waiting for a computation (its own or another's) holds no place in the lane.
        () => leaveLane(request),
      );
      sayWhereRead(reads, reply, read);
      return sendAnswer(request, reply, read.value);
    },
  };
}
