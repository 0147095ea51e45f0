// Scheduled digests (docs/sharing.md): each digest's last whole day or week of the workspace's time zone, e-mailed
// once. A round (every minute, the digests job) first writes each period that ended since the digest was made and has
// no row yet (unique per digest and period: a second process, or the same one after a restart, writes nothing more),
// then sends the rows not sent: each is leased first (committed), its figures read as the overview dashboard reads
// them for that period, the e-mail sent to the digest's members and addresses through the alerts' mail path, and the
// row marked sent. A process that dies while sending leaves a lease that runs out, and the next round sends it.
// Outside addresses get nothing before they confirm (confirm.ts: a round sends the confirmations first); trials send
// nothing; a workspace sends at most DIGEST_DAILY_CAP e-mails in any 24 hours (a period that would go over waits,
// counted as a try, with the reason as its error).
import { and, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import { DIGEST_DAILY_CAP, type DigestFrequency } from '@contract/digests';
import type { OverviewResponse } from '@contract/insights-responses';
import { instantOfWallClock, wallClock } from '@contract/zoned-time';
import { figuresReady } from '@server/analytics/figures-wait';
import type { AnalyticsService } from '@server/analytics/service';
import { digests, digestSends } from '@server/db/alerts-schema';
import type { Db } from '@server/db/database';
import { users, workspaces } from '@server/db/schema';
import { savedQueries } from '@server/db/social-schema';
import type { Mailer } from '@server/mail/mailer';
import { overview } from '@server/social/insights/overview';
import { resolveInsightScope } from '@server/social/insights/request';
import { confirmedAddresses, messagesSince, sendConfirmations } from './confirm';
import { digestUnsubscribeToken, type DigestRecipient } from './unsubscribe';

const DAY_MS = 86_400_000;
const LEASE_MS = 5 * 60_000;
/** Tries of one period's digest; then it is left, with its error. */
const MAX_ATTEMPTS = 5;

const pad = (n: number) => String(n).padStart(2, '0');
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface DigestPeriod {
  start: Date;
  end: Date;
}

/** The last whole day, or week (Monday to Sunday), of the zone at `now`. */
export function lastPeriod(now: Date, frequency: DigestFrequency, timeZone: string): DigestPeriod {
  const w = wallClock(now, timeZone);
  const today = Date.UTC(w.year, w.month - 1, w.day);
  // Days since Monday (getUTCDay: Sunday 0).
  const sinceMonday = (new Date(today).getUTCDay() + 6) % 7;
  const endDay = frequency === 'daily' ? today : today - sinceMonday * DAY_MS;
  const startDay = endDay - (frequency === 'daily' ? 1 : 7) * DAY_MS;
  const at = (ms: number) => instantOfWallClock(`${dayText(ms)}T00:00:00`, timeZone);
  return { start: at(startDay), end: at(endDay) };
}

export interface DigestDeps {
  db: Db;
  /** The dashboards' reads. */
  analyticsDb?: Db;
  analytics?: AnalyticsService | undefined;
  mailer: Mailer | undefined;
  appUrl: string;
  /** Signs each e-mail's unsubscribe link (server/keys.ts). */
  unsubscribeKey: Uint8Array;
  now?: () => Date;
}

export interface DigestRound {
  /** Periods written this round. */
  due: number;
  sent: number;
  failed: number;
}

/** One round: the periods that ended written, then every one not sent sent. */
export async function runDigests(deps: DigestDeps): Promise<DigestRound> {
  const now = deps.now?.() ?? new Date();
  const round: DigestRound = { due: 0, sent: 0, failed: 0 };
  const active = await deps.db
    .select({ digest: digests, timeZone: workspaces.timeZone })
    .from(digests)
    .innerJoin(workspaces, eq(workspaces.id, digests.workspaceId))
    .where(
      and(
        ne(workspaces.plan, 'trial'),
        or(
          isNull(workspaces.planExpiredAt),
          sql`${workspaces.planExpiredAt} > ${now.toISOString()}::timestamptz`,
        ),
      ),
    );
  for (const { digest, timeZone } of active) {
    const period = lastPeriod(now, digest.frequency, timeZone);
    // Only periods that end after the digest was made: the first one comes at the end of the current period.
    if (period.end <= digest.createdAt) continue;
    const written = await deps.db
      .insert(digestSends)
      .values({ digestId: digest.id, periodStart: period.start, periodEnd: period.end })
      .onConflictDoNothing({ target: [digestSends.digestId, digestSends.periodStart] })
      .returning({ id: digestSends.id });
    round.due += written.length;
  }
  if (!deps.mailer) return round;
  await sendConfirmations({ ...deps, now: () => now });
  // No store that can answer yet (opening, rebuilding): the digests due wait for a later round, their tries kept.
  if (figuresReady(deps.analytics)) return round;
  for (;;) {
    const leased = await lease(deps.db, now);
    if (!leased) break;
    try {
      const messages = await send(deps, leased, now);
      await deps.db
        .update(digestSends)
        .set({ sentAt: now, leaseUntil: null, lastError: null, messages })
        .where(eq(digestSends.id, leased.id));
      round.sent += 1;
    } catch (error) {
      round.failed += 1;
      await deps.db
        .update(digestSends)
        .set({ lastError: String((error as Error).message ?? error).slice(0, 500) })
        .where(eq(digestSends.id, leased.id));
    }
  }
  return round;
}

/** The next row to send, leased (committed): unsent, not leased by a live process, with tries left. */
async function lease(db: Db, now: Date) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(digestSends)
      .where(
        and(
          isNull(digestSends.sentAt),
          sql`${digestSends.attempts} < ${MAX_ATTEMPTS}`,
          or(
            isNull(digestSends.leaseUntil),
            sql`${digestSends.leaseUntil} < ${now.toISOString()}::timestamptz`,
          ),
        ),
      )
      .orderBy(digestSends.id)
      .limit(1)
      .for('update', { skipLocked: true });
    if (!row) return null;
    await tx
      .update(digestSends)
      .set({ leaseUntil: new Date(now.getTime() + LEASE_MS), attempts: sql`${digestSends.attempts} + 1` })
      .where(eq(digestSends.id, row.id));
    return row;
  });
}

/** Sends one period's e-mails; how many. */
async function send(deps: DigestDeps, row: typeof digestSends.$inferSelect, now: Date): Promise<number> {
  const [found] = await deps.db
    .select({ digest: digests, workspace: workspaces, queryName: savedQueries.name })
    .from(digests)
    .innerJoin(workspaces, eq(workspaces.id, digests.workspaceId))
    .innerJoin(savedQueries, eq(savedQueries.id, digests.savedQueryId))
    .where(eq(digests.id, row.digestId));
  if (!found) return 0;
  const { digest, workspace, queryName } = found;
  if (workspace.plan === 'trial') return 0;
  // Members who are still members, and the addresses.
  const members = digest.recipientIds.length
    ? await deps.db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(
          and(
            inArray(users.id, digest.recipientIds),
            sql`EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = ${users.id}
              AND m.workspace_id = ${workspace.id})`,
          ),
        )
    : [];
  // Addresses: a member's, or one that confirmed (the others get nothing but their confirmation e-mail).
  const confirmed = await confirmedAddresses(deps.db, workspace.id);
  const memberEmails = new Set(
    (
      await deps.db
        .select({ email: users.email })
        .from(users)
        .where(
          sql`EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = ${users.id} AND m.workspace_id = ${workspace.id})`,
        )
    ).map((m) => m.email.toLowerCase()),
  );
  const addresses = digest.addresses.filter((a) => confirmed.has(a) || memberEmails.has(a.toLowerCase()));
  // Each recipient once, with its own unsubscribe link.
  const seen = new Set<string>();
  const to: Array<{ email: string; recipient: DigestRecipient }> = [];
  for (const [email, recipient] of [
    ...members.map((m): [string, DigestRecipient] => [m.email, { userId: m.id }]),
    ...addresses.map((a): [string, DigestRecipient] => [a, { address: a }]),
  ]) {
    if (seen.has(email.toLowerCase())) continue;
    seen.add(email.toLowerCase());
    to.push({ email, recipient });
  }
  if (!to.length) return 0;
  const used = await messagesSince(deps.db, workspace.id, new Date(now.getTime() - DAY_MS));
  if (used + to.length > DIGEST_DAILY_CAP) {
    throw new Error(
      `The workspace's digests have sent ${used} of their ${DIGEST_DAILY_CAP} e-mails a day in the last 24 hours; ` +
        `these ${to.length} wait.`,
    );
  }
  const context = await resolveInsightScope(
    deps.db,
    workspace,
    {
      workspace_id: workspace.id,
      saved_query_id: digest.savedQueryId,
      filters: { from: row.periodStart.toISOString(), to: row.periodEnd.toISOString() },
      refine: [],
    },
    now,
  );
  const answer = await overview(deps.analyticsDb ?? deps.db, context, deps.analytics);
  // The period's days in the zone, both included: the dashboard's custom range.
  const firstDay = wallDay(row.periodStart, context.timeZone);
  const lastDay = wallDay(new Date(row.periodEnd.getTime() - 1), context.timeZone);
  const link =
    `${deps.appUrl}/workspace/${encodeURIComponent(workspace.id)}/insight/overview?` +
    new URLSearchParams({
      query: digest.savedQueryId,
      range: 'custom',
      from: firstDay,
      to: lastDay,
    }).toString();
  const message = digestMessage({
    queryName,
    workspaceName: workspace.name,
    frequency: digest.frequency,
    firstDay,
    lastDay,
    answer,
    link,
  });
  for (const { email, recipient } of to) {
    const unsubscribe = `${deps.appUrl}/unsubscribe#digest=${digestUnsubscribeToken(deps.unsubscribeKey, digest.id, recipient)}`;
    await deps.mailer!.send({
      to: email,
      subject: message.subject,
      text: `${message.text}\nTo stop receiving this digest: ${unsubscribe}\n`,
      html:
        `${message.html}<p style="color:#666;font-size:12px"><a href="${escape(unsubscribe)}">Stop receiving ` +
        'this digest</a>.</p>',
      headers: { 'List-Unsubscribe': `<${unsubscribe}>` },
    });
  }
  return to.length;
}

const wallDay = (at: Date, timeZone: string) => {
  const w = wallClock(at, timeZone);
  return `${w.year}-${pad(w.month)}-${pad(w.day)}`;
};

const whole = (n: number) => n.toLocaleString('en-US');
const change = (pct: number | null) =>
  pct === null ? 'new' : `${pct > 0 ? '+' : ''}${(Math.round(pct * 10) / 10).toLocaleString('en-US')}%`;
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const excerpt = (text: string) => (text.length > 140 ? `${text.slice(0, 139)}…` : text).replace(/\s+/g, ' ');

/** The e-mail of one period: subject, text and HTML with the same figures. */
function digestMessage(input: {
  queryName: string;
  workspaceName: string;
  frequency: DigestFrequency;
  firstDay: string;
  lastDay: string;
  answer: OverviewResponse;
  link: string;
}): { subject: string; text: string; html: string } {
  const { answer } = input;
  const when = input.frequency === 'daily' ? input.firstDay : `${input.firstDay} to ${input.lastDay}`;
  const before = input.frequency === 'daily' ? 'the day before' : 'the week before';
  const figure = (label: string, f: OverviewResponse['totals']['mentions']) =>
    `${label}: ${whole(f.value)} (${change(f.change_pct)} against ${whole(f.previous)} ${before})`;
  const figures = [
    figure('Mentions', answer.totals.mentions),
    figure('Unique authors', answer.totals.unique_authors),
    figure('Engagement', answer.totals.engagement),
    figure('Potential reach', answer.totals.reach),
    `Sentiment: ${whole(answer.sentiment.positive)} positive, ${whole(answer.sentiment.neutral)} neutral, ` +
      `${whole(answer.sentiment.negative)} negative` +
      (answer.sentiment.not_rated
        ? `, ${whole(answer.sentiment.not_rated)} not rated (too little text)`
        : ''),
  ];
  const spikes = answer.over_time
    .filter((b) => b.spike)
    .map((b) => `${b.local} (${whole(b.mentions)} mentions)`);
  const posts = answer.top_posts.map(
    (p, i) => `${i + 1}. @${p.author.handle} (${whole(p.engagement)} engagement): ${excerpt(p.text)}`,
  );
  const people = answer.top_people.map(
    (p, i) => `${i + 1}. ${p.display_name} (@${p.handle}): ${whole(p.mentions)} mentions`,
  );
  const title = `${input.frequency === 'daily' ? 'Daily' : 'Weekly'} digest of "${input.queryName}"`;
  const sections: Array<[string, string[]]> = [
    ['Key figures', figures],
    ['Spikes', spikes.length ? spikes : ['None']],
    ['Top posts', posts.length ? posts : ['None']],
    ['Top people', people.length ? people : ['None']],
  ];
  const text =
    `${title}, ${when} (${answer.time_zone}), in ${input.workspaceName}.\n\n` +
    sections.map(([head, lines]) => `${head}\n${lines.map((l) => `  ${l}`).join('\n')}`).join('\n\n') +
    `\n\nOpen the dashboard: ${input.link}\n\nWhat is counted: ${answer.counted}\n`;
  const html =
    `<h1 style="font-size:18px">${escape(title)}</h1><p>${escape(when)} (${escape(answer.time_zone)}), in ` +
    `${escape(input.workspaceName)}.</p>` +
    sections
      .map(
        ([head, lines]) =>
          `<h2 style="font-size:15px">${escape(head)}</h2><ul>${lines.map((l) => `<li>${escape(l)}</li>`).join('')}</ul>`,
      )
      .join('') +
    `<p><a href="${escape(input.link)}">Open the dashboard</a></p>` +
    `<p style="color:#666;font-size:12px">What is counted: ${escape(answer.counted)}</p>`;
  return { subject: `${title}: ${when}`, text, html };
}
