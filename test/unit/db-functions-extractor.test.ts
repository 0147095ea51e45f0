// The listing of SQL functions (scripts/db-functions.ts): statements split as psql splits them (semicolons in quotes,
// dollar quotes, comments and SQL-standard bodies do not end one), and the migrations replayed in order, so that each
// function's file holds its last definition and the triggers that still execute it.
import { describe, expect, it } from 'vitest';
import {
  renderCatalog,
  renderFunction,
  replay,
  splitStatements,
  type Migration,
} from '@scripts/db-functions-extract';

const texts = (sql: string) => splitStatements(sql).map((statement) => statement.text);

describe('splitStatements', () => {
  it('ends a statement at a semicolon outside quotes, dollar quotes and comments', () => {
    expect(
      texts(`SELECT 'a;b', "odd;name", E'it\\'s;' FROM t; -- a comment; with a semicolon
/* a block /* nested; */ comment; */ SELECT $$x;y$$, $tag$ $$ ; $tag$, $1;
SELECT 2`),
    ).toEqual([
      `SELECT 'a;b', "odd;name", E'it\\'s;' FROM t;`,
      `/* a block /* nested; */ comment; */ SELECT $$x;y$$, $tag$ $$ ; $tag$, $1;`,
      'SELECT 2',
    ]);
  });

  it('keeps a SQL-standard body (BEGIN ATOMIC … END, with CASE … END inside) whole', () => {
    const body = `CREATE FUNCTION f(n int) RETURNS TABLE (a int)
  LANGUAGE sql
  BEGIN ATOMIC
    SELECT CASE WHEN n > 0 THEN 1 ELSE 0 END;
    SELECT 2 WHERE n < 0;
  END;`;
    expect(texts(`${body}\nSELECT 3;`)).toEqual([body, 'SELECT 3;']);
  });

  it('does not count BEGIN or END in other statements, in quotes or in parentheses', () => {
    expect(
      texts(`SELECT 'begin'; CREATE FUNCTION g() RETURNS int RETURN (CASE WHEN true THEN 1 END); SELECT 1;`),
    ).toEqual([
      `SELECT 'begin';`,
      'CREATE FUNCTION g() RETURNS int RETURN (CASE WHEN true THEN 1 END);',
      'SELECT 1;',
    ]);
  });

  it("takes the comment lines just above a statement, but drizzle's breakpoints", () => {
    const [first, second, third] = splitStatements(`-- Not this one.

-- The first.
-- Two lines.
SELECT 1;--> statement-breakpoint
-- The second.
SELECT 2;--> statement-breakpoint
SELECT 3;`);
    expect(first).toEqual({ text: 'SELECT 1;', comment: ['The first.', 'Two lines.'] });
    expect(second).toEqual({ text: 'SELECT 2;', comment: ['The second.'] });
    expect(third).toEqual({ text: 'SELECT 3;', comment: [] });
  });

  it('refuses an unterminated dollar quote', () => {
    expect(() => splitStatements('CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1;')).toThrow(/\$body\$/);
  });
});

const MIGRATIONS: Migration[] = [
  {
    name: '0001_first.sql',
    sql: `CREATE TABLE "t" (id int);--> statement-breakpoint
-- Counts the rows; the body has a semicolon and a nested dollar quote.
CREATE FUNCTION "count_rows"() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
  EXECUTE $q$SELECT 1;$q$;
  RETURN NULL;
END $f$;--> statement-breakpoint
CREATE TRIGGER "t_count" AFTER INSERT ON "t" FOR EACH STATEMENT EXECUTE FUNCTION count_rows();--> statement-breakpoint
CREATE FUNCTION gone() RETURNS int LANGUAGE sql RETURN 1;--> statement-breakpoint
CREATE FUNCTION Standard(n int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT n; END;`,
  },
  {
    name: '0002_second.sql',
    sql: `-- Now counts twice.
CREATE OR REPLACE FUNCTION "count_rows"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RETURN NULL;
END $$;--> statement-breakpoint
DROP FUNCTION IF EXISTS gone();--> statement-breakpoint
CREATE TRIGGER "t_count_delete" AFTER DELETE ON "t" FOR EACH STATEMENT EXECUTE FUNCTION count_rows();--> statement-breakpoint
DROP TRIGGER "t_count" ON "t";`,
  },
];

describe('replay', () => {
  const catalog = replay(MIGRATIONS);

  it('keeps the last definition of each function, and drops what was dropped', () => {
    expect([...catalog.functions.keys()].sort()).toEqual(['count_rows', 'standard']);
    const count = catalog.functions.get('count_rows')!;
    expect(count.text).toMatch(/^CREATE OR REPLACE FUNCTION "count_rows"\(\)[\s\S]*END \$\$;$/);
    expect(count.versions.map((v) => v.migration)).toEqual(['0001_first.sql', '0002_second.sql']);
    expect(catalog.functions.get('standard')!.text).toBe(
      'CREATE FUNCTION Standard(n int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT n; END;',
    );
  });

  it('keeps the triggers that were not dropped', () => {
    expect([...catalog.triggers.keys()]).toEqual(['t.t_count_delete']);
    expect(catalog.triggers.get('t.t_count_delete')!.function).toBe('count_rows');
  });

  it('renders each function with where it comes from, its comments and its triggers', () => {
    const file = renderCatalog(catalog).get('count_rows.sql')!;
    expect(file).toContain('do not edit');
    expect(file).toContain('-- count_rows: created in 0001_first.sql, replaced in 0002_second.sql.');
    expect(file).toContain('-- The definition below is the one of 0002_second.sql.');
    expect(file).toContain('-- Counts the rows; the body has a semicolon and a nested dollar quote.');
    expect(file).toContain('-- Now counts twice.');
    expect(file).toContain(catalog.functions.get('count_rows')!.text);
    expect(file).toContain('CREATE TRIGGER "t_count_delete"');
    expect(file).not.toContain('"t_count" AFTER INSERT');
    expect(renderFunction(catalog.functions.get('standard')!, [])).not.toContain('The triggers');
  });

  it('refuses an overload, which one file per name cannot list', () => {
    expect(() =>
      replay([
        { name: 'a.sql', sql: 'CREATE FUNCTION f(a int) RETURNS int RETURN a;' },
        { name: 'b.sql', sql: 'CREATE OR REPLACE FUNCTION f(a text) RETURNS int RETURN 1;' },
      ]),
    ).toThrow(/overload/);
  });
});
