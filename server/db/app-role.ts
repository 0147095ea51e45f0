// The role the server's connections log in as: not the database's owner, not a superuser. The owner (DATABASE_URL's
// role, or the embedded PostgreSQL's `murmur`) applies the migrations and, at every start, makes sure of this role and
// of its rights: reading and writing the tables (through the corpus's change path where a guard stands:
// docs/corpus-storage.md), its sequences and functions, temporary tables, VACUUM/ANALYZE (MAINTAIN), and the job
// queue's schema (pgboss, its own). What it cannot do is what would get around the guards: ALTER TABLE (… DISABLE
// TRIGGER), SET session_replication_role, DDL on the corpus's tables (a month of posts is made and dropped by
// SECURITY DEFINER functions of the owner's).
import { createHmac } from 'node:crypto';
import pg from 'pg';

/** The application role's name: the owner's with `_app` (the embedded PostgreSQL's: murmur_app). */
const appRoleOf = (owner: string) => `${owner}_app`;

/**
 * Its password, derived from the owner's: every process given the owner's URL (servers, workers, tools) logs in as
 * the same role without another secret to configure, and nobody who lacks the owner's password can derive it.
 */
const appPasswordOf = (ownerPassword: string, role: string) =>
  createHmac('sha256', ownerPassword).update(`murmur application role ${role}`).digest('base64url');

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** PostgreSQL's codes for "already there" when two processes create the role at once. */
const RACED = new Set(['42710', '23505', 'XX000']);

async function canLogIn(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, application_name: 'murmur role check' });
  try {
    await client.connect();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === '28P01') return false;
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface AppRole {
  /** The URL the server's pools connect with. */
  url: string;
  /** Why the owner's own role is used instead, when it is (it may not create roles). */
  fallback?: string;
}

/**
 * As the owner (`owner`, a connection of `ownerUrl` after the migrations): the application role exists, may log in
 * with its derived password and holds its rights on this database; returns the URL to connect with.
 */
export async function ensureAppRole(owner: pg.ClientBase, ownerUrl: string): Promise<AppRole> {
  const url = new URL(ownerUrl);
  const { rows } = await owner.query<{
    name: string;
    database: string;
    superuser: boolean;
    createrole: boolean;
    version: number;
  }>(
    `SELECT current_user AS name, current_database() AS database, r.rolsuper AS superuser,
       r.rolcreaterole AS createrole, current_setting('server_version_num')::int AS version
     FROM pg_roles r WHERE r.rolname = current_user`,
  );
  const me = rows[0]!;
  const role = appRoleOf(me.name);
  const password = appPasswordOf(decodeURIComponent(url.password), role);
  const appUrl = new URL(url);
  appUrl.username = encodeURIComponent(role);
  appUrl.password = encodeURIComponent(password);
  const exists = (await owner.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
  if (!me.superuser && !me.createrole && !exists) {
    return {
      url: ownerUrl,
      fallback: `the role ${me.name} may not create roles (CREATEROLE): the server connects as ${me.name}, the owner`,
    };
  }
  if (!exists) {
    try {
      await owner.query(
        `CREATE ROLE ${ident(role)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS ` +
          `PASSWORD ${literal(password)}`,
      );
    } catch (error) {
      if (!RACED.has((error as { code?: string }).code ?? '')) throw error;
    }
  } else if (!(await canLogIn(appUrl.toString()))) {
    await owner.query(`ALTER ROLE ${ident(role)} LOGIN PASSWORD ${literal(password)}`);
  }
  const r = ident(role);
  // MAINTAIN (VACUUM, ANALYZE: the demo corpus's load) exists from PostgreSQL 17.
  const tableRights = `SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES${me.version >= 170000 ? ', MAINTAIN' : ''}`;
  const statements = [
    `GRANT CONNECT, TEMPORARY, CREATE ON DATABASE ${ident(me.database)} TO ${r}`,
    `GRANT USAGE ON SCHEMA public TO ${r}`,
    `GRANT ${tableRights} ON ALL TABLES IN SCHEMA public TO ${r}`,
    `GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${r}`,
    `GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO ${r}`,
    // What the owner makes later (a month of posts, by posts_partition_ensure; the next migration's tables).
    `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ${tableRights} ON TABLES TO ${r}`,
    `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${r}`,
    // The job queue's schema is pg-boss's, which runs as this role: made by it, or handed over from an owner that ran
    // it before (its tables, types and functions with it).
    `DO $$
     DECLARE
       item record;
     BEGIN
       IF to_regnamespace('pgboss') IS NULL THEN
         RETURN;
       END IF;
       EXECUTE format('ALTER SCHEMA pgboss OWNER TO %I', ${literal(role)});
       FOR item IN SELECT c.relname AS name FROM pg_class c
         WHERE c.relnamespace = 'pgboss'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')
           AND NOT c.relispartition AND pg_get_userbyid(c.relowner) <> ${literal(role)} LOOP
         EXECUTE format('ALTER TABLE pgboss.%I OWNER TO %I', item.name, ${literal(role)});
       END LOOP;
       FOR item IN SELECT c.relname AS name FROM pg_class c
         WHERE c.relnamespace = 'pgboss'::regnamespace AND c.relkind = 'r' AND c.relispartition
           AND pg_get_userbyid(c.relowner) <> ${literal(role)} LOOP
         EXECUTE format('ALTER TABLE pgboss.%I OWNER TO %I', item.name, ${literal(role)});
       END LOOP;
       FOR item IN SELECT t.typname AS name FROM pg_type t
         WHERE t.typnamespace = 'pgboss'::regnamespace AND t.typtype IN ('e', 'd')
           AND pg_get_userbyid(t.typowner) <> ${literal(role)} LOOP
         EXECUTE format('ALTER TYPE pgboss.%I OWNER TO %I', item.name, ${literal(role)});
       END LOOP;
       FOR item IN SELECT p.oid::regprocedure AS signature FROM pg_proc p
         WHERE p.pronamespace = 'pgboss'::regnamespace AND pg_get_userbyid(p.proowner) <> ${literal(role)} LOOP
         EXECUTE format('ALTER ROUTINE %s OWNER TO %I', item.signature, ${literal(role)});
       END LOOP;
     END $$`,
  ];
  for (const statement of statements) {
    try {
      await owner.query(statement);
    } catch (error) {
      // Two processes granting at once: the other's grant stands.
      if ((error as { code?: string }).code !== 'XX000') throw error;
    }
  }
  return { url: appUrl.toString() };
}
