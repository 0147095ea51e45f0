// The second check of a workspace's time zone, after the contract's (contract/time-zones.ts: Intl lists it): the
// dashboards set it as PostgreSQL's TimeZone and count in it there, so PostgreSQL must know the name as spelled.
// pg_timezone_names is case-sensitive where Intl and PostgreSQL's own lookup are not.
import { sql } from 'drizzle-orm';
import type { Executor } from './access';

export async function postgresKnowsTimeZone(db: Executor, zone: string): Promise<boolean> {
  const { rows } = await db.execute<{ known: boolean }>(
    sql`SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = ${zone}) AS known`,
  );
  return rows[0]?.known === true;
}

/** The 400 of a zone PostgreSQL does not know, in the shape of every validation failure. */
export const unknownTimeZone = () => ({
  error: 'invalid_request',
  message: 'The request is not valid.',
  fields: [{ path: 'time_zone', message: 'Choose a time zone from the list' }],
});
