// Digests to outside addresses (not a member's e-mail) need the address's consent first (docs/sharing.md): when a digest
// names one, a row waits in digest_confirmations (one per workspace and address), and a round sends it one e-mail with
// a confirmation link and the digest's unsubscribe link. Until the link is followed, nothing else goes to the address.
// The link's token is 32 random bytes (base64url) in the fragment of /unsubscribe#confirm=…; only its SHA-256 is kept.
//
// The workspace's daily cap (DIGEST_DAILY_CAP) counts the confirmations with the digests' e-mails (messagesSince);
// trials send neither.
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { DIGEST_DAILY_CAP } from '@contract/digests';
import { digestConfirmations } from '@server/db/alerts-schema';
import type { Db } from '@server/db/database';
import type { Executor } from '@server/workspaces/access';
import type { Mailer } from '@server/mail/mailer';
import { digestUnsubscribeToken } from './unsubscribe';

const DAY_MS = 86_400_000;

/** Why a trial cannot schedule digests, for the API's refusal and the page. */
export const DIGESTS_NOT_ON_TRIAL =
  'Digests are not available during a trial: they e-mail people outside Murmur. An owner can choose a plan in ' +
  'Settings › Plan.';

export const hashConfirmToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * E-mails the workspace's digests sent since `since`: each period's messages, and the confirmations asked for. The
 * daily cap compares these over the last 24 hours.
 */
export async function messagesSince(db: Executor, workspaceId: string, since: Date): Promise<number> {
  const result = await db.execute<{ n: number }>(sql`
    SELECT (SELECT coalesce(sum(s.messages), 0) FROM digest_sends s JOIN digests d ON d.id = s.digest_id
              WHERE d.workspace_id = ${workspaceId} AND s.sent_at > ${since.toISOString()}::timestamptz)
         + (SELECT count(*) FROM digest_confirmations c
              WHERE c.workspace_id = ${workspaceId} AND c.requested_at > ${since.toISOString()}::timestamptz) AS n`);
  return Number(result.rows[0]?.n ?? 0);
}

/** The workspace's addresses that confirmed (lower case). */
export async function confirmedAddresses(db: Executor, workspaceId: string): Promise<Set<string>> {
  const rows = await db
    .select({ address: digestConfirmations.address })
    .from(digestConfirmations)
    .where(
      and(
        eq(digestConfirmations.workspaceId, workspaceId),
        sql`${digestConfirmations.confirmedAt} IS NOT NULL`,
      ),
    );
  return new Set(rows.map((r) => r.address));
}

export interface ConfirmationDeps {
  db: Db;
  mailer: Mailer | undefined;
  appUrl: string;
  /** Signs the e-mails' unsubscribe links (the digests' key). */
  unsubscribeKey: Uint8Array;
  now?: () => Date;
}

/**
 * Sends the confirmation e-mails not sent yet (of one workspace, or of all): only for addresses still on one of the
 * workspace's digests, never for a trial or an expired plan, and within the daily cap (the rest wait for a later
 * round). Each is claimed first (its token's hash and the time written where none was, so two processes never both
 * send it); a failed send is released for the next round. How many were sent.
 */
export async function sendConfirmations(deps: ConfirmationDeps, workspaceId?: string): Promise<number> {
  if (!deps.mailer) return 0;
  const now = deps.now?.() ?? new Date();
  const waiting = await deps.db.execute<{
    workspace_id: string;
    address: string;
    digest_id: string;
    workspace_name: string;
    frequency: string;
  }>(sql`
    SELECT DISTINCT ON (c.workspace_id, c.address) c.workspace_id, c.address, d.id AS digest_id,
      w.name AS workspace_name, d.frequency::text AS frequency
    FROM digest_confirmations c
    JOIN workspaces w ON w.id = c.workspace_id
    JOIN digests d ON d.workspace_id = c.workspace_id AND c.address = ANY (d.addresses)
    WHERE c.requested_at IS NULL AND c.confirmed_at IS NULL AND w.plan <> 'trial'
      AND (w.plan_expired_at IS NULL OR w.plan_expired_at > ${now.toISOString()}::timestamptz)
      ${workspaceId ? sql`AND c.workspace_id = ${workspaceId}` : sql``}
    ORDER BY c.workspace_id, c.address, d.created_at`);
  let sent = 0;
  for (const row of waiting.rows) {
    const used = await messagesSince(deps.db, row.workspace_id, new Date(now.getTime() - DAY_MS));
    if (used >= DIGEST_DAILY_CAP) continue;
    const token = randomBytes(32).toString('base64url');
    const claimed = await deps.db
      .update(digestConfirmations)
      .set({ tokenHash: hashConfirmToken(token), requestedAt: now, digestId: row.digest_id })
      .where(
        and(
          eq(digestConfirmations.workspaceId, row.workspace_id),
          eq(digestConfirmations.address, row.address),
          isNull(digestConfirmations.requestedAt),
        ),
      )
      .returning({ address: digestConfirmations.address });
    if (!claimed.length) continue;
    const confirm = `${deps.appUrl}/unsubscribe#confirm=${token}`;
    const unsubscribe = `${deps.appUrl}/unsubscribe#digest=${digestUnsubscribeToken(deps.unsubscribeKey, row.digest_id, { address: row.address })}`;
    // The workspace's name is its owner's text: quoted, clipped, and the only free text in the message.
    const workspace =
      row.workspace_name.length > 60 ? `${row.workspace_name.slice(0, 59)}…` : row.workspace_name;
    const text =
      `Someone in the Murmur workspace "${workspace}" asked to send a ${row.frequency} digest of social-media ` +
      `figures to this address.\n\nNothing will be sent to you unless you confirm: ${confirm}\n\n` +
      `If you did not expect this, ignore this e-mail: you will get no other. To refuse for good: ${unsubscribe}\n`;
    const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const html =
      `<p>Someone in the Murmur workspace "${escape(workspace)}" asked to send a ${escape(row.frequency)} digest ` +
      `of social-media figures to this address.</p><p>Nothing will be sent to you unless you confirm: ` +
      `<a href="${escape(confirm)}">Confirm that you want this digest</a>.</p>` +
      `<p style="color:#666;font-size:12px">If you did not expect this, ignore this e-mail: you will get no other. ` +
      `<a href="${escape(unsubscribe)}">Refuse this digest</a>.</p>`;
    try {
      await deps.mailer.send({
        to: row.address,
        subject: 'Confirm that you want a Murmur digest',
        text,
        html,
        headers: { 'List-Unsubscribe': `<${unsubscribe}>` },
      });
      sent += 1;
    } catch {
      await deps.db
        .update(digestConfirmations)
        .set({ tokenHash: null, requestedAt: null })
        .where(
          and(
            eq(digestConfirmations.workspaceId, row.workspace_id),
            eq(digestConfirmations.address, row.address),
          ),
        );
    }
  }
  return sent;
}
