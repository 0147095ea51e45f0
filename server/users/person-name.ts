// A person as the app names them to others: "Ada Lovelace", else their e-mail (over `users`).
import { sql } from 'drizzle-orm';
import { users } from '@server/db/schema';

export const personName = sql<
  string | null
>`coalesce(nullif(btrim(concat_ws(' ', ${users.firstName}, ${users.lastName})), ''), ${users.email})`;
