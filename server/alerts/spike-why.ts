// Why a spike alert fired: its window's drivers (server/social/insights/drivers.ts) against the same wall-clock hours
// of the days before, said in one sentence (driversSentence) in the alert's message, and its first drivers kept in the
// event's figures (the webhook's `murmur.figures.drivers`). The window is the rule's hour or day so far, so that it is
// compared with the same part of the days before. A failure to read them costs the explanation, never the alert.
import { driversSentence } from '@contract/insights-drivers';
import type { AnalyticsService } from '@server/analytics/service';
import type { Db } from '@server/db/database';
import type { Corrections } from '@server/social/corrections';
import { drivers } from '@server/social/insights/drivers';
import { resolveInsightScope } from '@server/social/insights/request';

/** The drivers an alert carries. */
const ALERT_DRIVERS = 5;

export interface SpikeWhy {
  sentence: string;
  drivers: Array<{ kind: string; label: string; posts: number; expected: number; share: number }>;
}

export async function spikeWhy(
  db: Db,
  analytics: AnalyticsService | undefined,
  ask: {
    workspaceId: string;
    savedQueryId: string;
    timeZone: string;
    corrections: Corrections;
    from: Date;
    to: Date;
    now: Date;
  },
  log: (message: string) => void,
): Promise<SpikeWhy | null> {
  try {
    const context = await resolveInsightScope(
      db,
      { timeZone: ask.timeZone },
      {
        workspace_id: ask.workspaceId,
        saved_query_id: ask.savedQueryId,
        filters: { from: ask.from.toISOString(), to: ask.to.toISOString() },
        refine: [],
      },
      ask.now,
      ask.corrections,
    );
    const answer = await drivers(db, context, ALERT_DRIVERS, analytics);
    return {
      sentence: driversSentence(answer),
      drivers: answer.drivers.map((d) => ({
        kind: d.kind,
        label: d.label,
        posts: d.posts,
        expected: Math.round(d.expected * 10) / 10,
        share: Math.round(d.share * 1000) / 1000,
      })),
    };
  } catch (error) {
    log(`Alerts: the drivers of ${ask.savedQueryId} could not be read (${(error as Error).message}).`);
    return null;
  }
}
