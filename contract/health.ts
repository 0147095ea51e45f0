// GET /api/health: whether the server can answer, for load balancers and process supervisors.
import * as z from 'zod/mini';

export const healthResponseSchema = z.object({
  /** `ok` with 200; `unavailable` with 503 (the database is not answering). */
  status: z.enum(['ok', 'unavailable']),
  database: z.object({
    /**
     * `up`: it answers. `restarting`: the embedded PostgreSQL died and is being started again (try `attempt` of
     * `attempts`). `down`: it does not answer (an external database, or every restart failed and the server exits).
     */
    state: z.enum(['up', 'restarting', 'down']),
    attempt: z.optional(z.number()),
    attempts: z.optional(z.number()),
    /** While restarting: what keeps it from starting when waiting cures it ("the disk is full"); tries go on. */
    reason: z.optional(z.string()),
  }),
});
export type HealthResponse = z.infer<typeof healthResponseSchema>;
