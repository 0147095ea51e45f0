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
  /**
   * The analytics store's figures (absent when the server runs none, ANALYTICS_STORE=off). `state`: `opening`,
   * `rebuilding` (from PostgreSQL: a first start, an older layout, or a store found missing or damaged, which the
   * server detects and rebuilds by itself), `applying` (the change feed), `standby` (another process runs it),
   * `restarting`, `down`, `stopped`. `ready`: the store answers the dashboards. The status code stays about the
   * database: a store that is not ready leaves it 200 (the dashboards answer meanwhile).
   */
  figures: z.optional(
    z.object({
      state: z.enum(['opening', 'standby', 'rebuilding', 'applying', 'restarting', 'down', 'stopped']),
      ready: z.boolean(),
      /**
       * While rebuilding: the phase (`posts` loaded, `tokens` filled, `merges` of each table into one part), its
       * `step` of `steps`, `done` of `total` (posts; rows for the merges), `percent` of the phase (rounded down), and
       * `eta_seconds`, the time the phase still needs at the rate measured since it began (null until measured).
       */
      progress: z.optional(
        z.object({
          phase: z.enum(['posts', 'tokens', 'merges']),
          step: z.number(),
          steps: z.number(),
          done: z.number(),
          total: z.number(),
          percent: z.number(),
          eta_seconds: z.nullable(z.number()),
        }),
      ),
    }),
  ),
});
export type HealthResponse = z.infer<typeof healthResponseSchema>;
