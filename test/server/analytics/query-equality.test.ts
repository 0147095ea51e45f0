// The store answers every query as PostgreSQL does: for each query of a list that covers every operator of the
// query language (and the edges of PostgreSQL's text search, test/support/store-query.fixtures.ts), over a generated
// corpus and hand-written posts, the same posts (by id) and the same count, over the whole corpus and over scopes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_DATABASE } from '@server/analytics/layout';
import { countStoreMatches, storeCondition } from '@server/analytics/query/count';
import {
  candidateRows,
  compileStoreCandidates,
  compileStoreQuery,
  type StoreRange,
  type StoreScope,
} from '@server/analytics/query/compile';
import { queryWords } from '@server/analytics/query/words';
import { StoreParams } from '@server/analytics/params';
import { rebuildStore } from '@server/analytics/rebuild';
import { type AnalyticsStore, EmbeddedStore } from '@server/analytics/store';
import { compileQuery, parseQuery, QUERY_FROM, type QueryNode } from '@server/query/index';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { countMatches } from '@server/social/query/count';
import { scopeWhere } from '@server/social/scope';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { EDGE_QUERIES, insertEdgePosts } from '@test/support/store-query.fixtures';

let server: TestServer;
let dataDir: string;
let store: AnalyticsStore;
let queries: string[];
/** Two of the corpus's common words (`${a} ${b}`), counted capped. */
let twoWords: string;

beforeAll(async () => {
  server = await createTestServer();
  await generateCorpus(server.pool, {
    seed: 7,
    posts: 3_000,
    end: Date.UTC(2025, 5, 1),
    days: 60,
    batchSize: 1_000,
  });
  await insertEdgePosts(server);
  dataDir = mkdtempSync(join(tmpdir(), 'murmur-analytics-query-'));
  store = await EmbeddedStore.open({ dataDir });
  await rebuildStore(server, store);
  // The generated corpus's own words: its most common ones, a rare one, prefixes and phrases of them.
  const { rows } = await server.pool.query<{ word: string }>(
    `(SELECT word FROM ts_stat('SELECT search FROM posts') WHERE word ~ '^[a-z]{4,}$' ORDER BY ndoc DESC, word LIMIT 4)
     UNION ALL (SELECT word FROM ts_stat('SELECT search FROM posts') WHERE word ~ '^[a-z]{4,}$' AND ndoc = 3
       ORDER BY word LIMIT 1)`,
  );
  const [a, b, c, d, rare] = rows.map((row) => row.word);
  const { rows: hashtags } = await server.pool.query<{ tag: string }>(
    `SELECT tag FROM posts, unnest(hashtags) tag GROUP BY tag ORDER BY count(*) DESC, tag LIMIT 1`,
  );
  twoWords = `${a} ${b}`;
  queries = [
    ...EDGE_QUERIES,
    a!,
    `${a} ${b}`,
    `${a} OR ${rare}`,
    `NOT ${a}`,
    `${a!.slice(0, 3)}*`,
    `"${a} ${b}"`,
    `"${c} ${d}"`,
    `${a} NEAR/5 ${b}`,
    `(${a} OR ${c}) NEAR/3 ${d}`,
    `${a} NEAR/2 ${b}*`,
    `#${hashtags[0]!.tag}`,
    `${a} platform:instagram`,
    `${b} NOT lang:en`,
    // A platform's or a language's posts are read from their token slices (compile.ts, wide sets).
    'lang:ko',
    'platform:instagram lang:en',
    `lang:en ${a}`,
    'platform:x OR lang:es',
    'NOT platform:x lang:en',
    `(${c} OR ${d}) NOT country:US`,
  ];
}, 300_000);
afterAll(async () => {
  await store?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const parsed = (query: string): QueryNode => {
  const result = parseQuery(query);
  if (!result.ok) throw new Error(`${query}: ${JSON.stringify(result.errors)}`);
  return result.ast;
};

/** PostgreSQL's matches for the scope (no dates: the whole corpus, as the query count has it). */
async function pgIds(scope: StoreScope): Promise<string[]> {
  const where =
    scope.from && scope.to
      ? scopeWhere({ ...scope, from: scope.from, to: scope.to })
      : compileQuery(scope.query!);
  const result = await server.db.execute<{ id: string }>(
    sql`SELECT p.id::text AS id FROM ${QUERY_FROM} WHERE ${where} ORDER BY p.id`,
  );
  return result.rows.map((row) => row.id);
}

async function storeIds(scope: StoreScope): Promise<string[]> {
  const condition = await storeCondition(server.pool, scope);
  const rows = await store.query<{ id: string }>(
    `SELECT toString(p.id) AS id FROM ${STORE_DATABASE}.posts p WHERE ${condition.sql} ORDER BY p.id`,
    condition.params,
  );
  return rows.map((row) => row.id);
}

const SCOPES: Array<{ name: string; scope: Omit<StoreScope, 'query'> }> = [
  { name: 'the whole corpus', scope: { platforms: [], languages: [] } },
  {
    name: 'May 2025',
    scope: {
      platforms: [],
      languages: [],
      from: new Date('2025-05-01T00:00:00Z'),
      to: new Date('2025-06-01T00:00:00Z'),
    },
  },
  {
    name: 'ten days before a bound inside the last ms, x and instagram, en and ko',
    scope: {
      platforms: ['x', 'instagram'],
      languages: ['en', 'ko'],
      from: new Date('2025-05-22T00:00:00Z'),
      to: new Date('2025-05-31T23:59:59.999Z'),
    },
  },
];

describe('the store answers queries as PostgreSQL does', () => {
  for (const { name, scope } of SCOPES) {
    it(`matches the same posts over ${name}`, async () => {
      const differences: string[] = [];
      let matched = 0;
      for (const query of queries) {
        const full = { ...scope, query: parsed(query) };
        const [expected, got] = await Promise.all([pgIds(full), storeIds(full)]);
        if (expected.length) matched += 1;
        if (JSON.stringify(expected) !== JSON.stringify(got)) {
          const missing = expected.filter((id) => !got.includes(id));
          const extra = got.filter((id) => !expected.includes(id));
          differences.push(
            `${query}: PostgreSQL ${expected.length}, store ${got.length}, missing ${missing.slice(0, 5).join(',')} extra ${extra.slice(0, 5).join(',')}`,
          );
        }
      }
      expect(differences).toEqual([]);
      // The list is not vacuous: most queries match something.
      expect(matched).toBeGreaterThan(queries.length / (scope.from ? 3 : 2));
    });
  }

  it("reads the same posts from a query's token slices (its candidates) as from the posts table", async () => {
    // What the dashboards' statements read when the query gives candidates (insights/scope.ts, storeFrom): the
    // candidates' rows from the token slices, each post once, and the condition over them but for the set's own terms.
    const differences: string[] = [];
    let driven = 0;
    for (const { scope } of SCOPES.filter(({ scope }) => scope.from)) {
      const range = { from: scope.from!, to: scope.to! };
      for (const query of queries) {
        const full = { ...scope, query: parsed(query) };
        const words = await queryWords(server.pool, full.query);
        const params = new StoreParams();
        const candidates = compileStoreCandidates(full.query, params, words, range);
        if (!candidates) continue;
        driven += 1;
        const columns = new Set(['platform', 'lang', 'author_id']);
        const condition = [
          `p.ts >= ${params.add(range.from.getTime(), 'Int64')} AND p.ts < ${params.add(range.to.getTime(), 'Int64')}`,
          scope.platforms.length
            ? `has(${params.add(scope.platforms, 'Array(String)')}, p.platform)`
            : 'true',
          scope.languages.length ? `has(${params.add(scope.languages, 'Array(String)')}, p.lang)` : 'true',
          compileStoreQuery(full.query, params, words, range, candidates.given),
        ].join(' AND ');
        const rows = await store.query<{ id: string; n: string }>(
          `SELECT toString(p.id) AS id, count() OVER (PARTITION BY p.id) AS n
          FROM (${candidateRows(candidates, columns, params, range)}) p WHERE ${condition} ORDER BY p.id`,
          params.values,
        );
        const [expected, got] = [await pgIds(full), rows.map((row) => row.id)];
        if (JSON.stringify(expected) !== JSON.stringify(got) || rows.some((row) => row.n !== '1'))
          differences.push(`${query}: PostgreSQL ${expected.length}, candidates ${got.length}`);
      }
    }
    expect(differences).toEqual([]);
    // Most queries drive from their slices (every one but those whose every operand is a NOT, a country or an OR with
    // a platform or language).
    expect(driven).toBeGreaterThan(queries.length);
  });

  it('counts as PostgreSQL counts, capped the same way', async () => {
    for (const query of ['coffee', 'NOT coffee', '"flat white"', '東京', twoWords]) {
      const ast = parsed(query);
      for (const cap of [3, 100_000]) {
        const expected = await countMatches(server.db, compileQuery(ast), { cap });
        const got = await countStoreMatches(
          store,
          server.pool,
          { query: ast, platforms: [], languages: [] },
          { cap },
        );
        expect({ query, cap, ...got }).toEqual({ query, cap, ...expected });
      }
    }
  });

  it('binds every value of a query as a parameter: hostile text is matched as text, never spliced into the SQL', async () => {
    const hostile = `"x' OR 1=1 --" OR author:a.b OR #x OR lang:en OR drop*`;
    const ast = parsed(hostile);
    const params = new StoreParams();
    const range: StoreRange = {
      from: new Date('2025-05-01T00:00:00Z'),
      to: new Date('2025-06-01T00:00:00Z'),
    };
    const condition = compileStoreQuery(ast, params, await queryWords(server.pool, ast), range);
    for (const text of ["x'", '1=1', 'drop', 'a.b']) expect(condition).not.toContain(text);
    expect(Object.values(params.values)).toContain('drop');
    const scope = { query: ast, platforms: [], languages: [], ...range };
    expect(await storeIds(scope)).toEqual(await pgIds(scope));
  });
});
