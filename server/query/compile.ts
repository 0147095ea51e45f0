// The FROM clause of the social domain's post look-ups: a post and its author. The analytics store decides which posts
// a query matches (server/analytics/matching/compile.ts); PostgreSQL only reads back the rows of the ids it names.
import { sql } from 'drizzle-orm';

export const QUERY_FROM = sql`posts p JOIN profiles a ON a.id = p.author_id`;
