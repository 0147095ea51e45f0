// The analytics store against a real PostgreSQL: its process answers queries over IPC, makes its layout, is rebuilt
// from PostgreSQL with the same posts and their words (the reference tokenizer's), and a killed process rejects what
// was in flight (no hang) while a new store opens the same data again.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { getPriority } from 'node:os';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ensureLayout,
  LAYOUT_VERSION,
  layoutVersion,
  makeDurable,
  sampleHash,
  STORE_DATABASE,
  textStretch,
} from '@server/analytics/layout';
import { LAYOUT_STEPS, migrateLayout } from '@server/analytics/layout-steps';
import { ensurePositionTable, recordPosition, storePosition } from '@server/analytics/position';
import { masksHolding, SCRIPT_CLASSES, scriptsOf, scriptsSql } from '@server/analytics/matching/scripts';
import { textGrams } from '@server/analytics/matching/words';
import { rebuildStore } from '@server/analytics/rebuild';
import {
  type AnalyticsStore,
  EmbeddedStore,
  AnalyticsStoreStopped,
  STOPPED_ANSWERING,
  storeHolder,
} from '@server/analytics/store';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { words } from '@test/support/reference/tokens';
import { createTestServer, type TestServer } from '@test/support/server-harness';

const POSTS = 2_000;
let server: TestServer;
let dataDir: string;
let store: AnalyticsStore;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generateCorpus(server.pool, { seed: 29, posts: POSTS, end: Date.UTC(2025, 5, 1), batchSize: 700 });
  dataDir = mkdtempSync(join(tmpdir(), 'murmur-analytics-'));
  store = await EmbeddedStore.open({ dataDir });
});
afterAll(async () => {
  await store?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const pgCount = async (sql: string, params: unknown[] = []) =>
  Number((await server.pool.query<{ n: string }>(sql, params)).rows[0]!.n);

describe('analytics store', () => {
  it('answers over IPC with JSONEachRow rows, 64-bit integers as strings, and says why a query is refused', async () => {
    expect(await store.query(`SELECT 1 AS one, toUInt64(18446744073709551615) AS big`)).toEqual([
      { one: 1, big: '18446744073709551615' },
    ]);
    expect(await store.query(`SELECT getSetting('max_threads') AS threads`)).toEqual([{ threads: 1 }]); // the machine's cores otherwise;
    await expect(store.query('SELEKT 1')).rejects.toThrow(
      /The analytics store refused a query: .*Syntax error/s,
    );
  });

  it("runs below the server's priority: every thread of its process, those its queries start too", async () => {
    await store.query('SELECT count() FROM numbers(10000000) SETTINGS max_threads = 2');
    const pid = storeHolder(dataDir)!;
    // /proc/<pid>/task/<tid>/stat: the thread's name in parentheses, then fields; the 19th is its nice value.
    const threads = readdirSync(`/proc/${pid}/task`).map((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(') ');
      return {
        name: stat.slice(stat.indexOf('(') + 1, close),
        nice: Number(stat.slice(close + 2).split(' ')[16]),
      };
    });
    expect(threads.filter((t) => t.name.startsWith('ThreadPool')).length).toBeGreaterThan(0);
    // But ClickHouse's MemoryWorker, which raises its own priority where it may (as root).
    const queryThreads = threads.filter((t) => t.name !== 'MemoryWorker');
    // Ten below the server's own (nice(1) adds to the caller's value, up to 19).
    expect(new Set(queryThreads.map((t) => t.nice))).toEqual(new Set([Math.min(19, getPriority() + 10)]));
  });

  it('inlines parameters as expressions holding none of their characters: a value is a value, never SQL', async () => {
    const hostile = "x' OR 1=1 --";
    expect(
      await store.query<{ v: string; n: string }>('SELECT {v:String} AS v, {n:UInt64} AS n', {
        v: hostile,
        n: '18446744073709551615',
      }),
    ).toEqual([{ v: hostile, n: '18446744073709551615' }]);
    expect(
      await store.query<{ has: number }>('SELECT has({words:Array(String)}, {w:String}) AS has', {
        words: ['a', "b'c"],
        w: "b'c",
      }),
    ).toEqual([{ has: 1 }]);
    await expect(store.query('SELECT {n:UInt8} AS n', { n: 'nine' })).rejects.toThrow(/Not a value of UInt8/);
    // Out of its type's range: refused, where CAST would wrap it (300 as UInt8 is 44).
    for (const [type, n] of [
      ['UInt8', 256],
      ['UInt8', -1],
      ['Int8', 128],
      ['Int8', -129],
      ['UInt32', 2 ** 32],
      ['UInt64', '18446744073709551616'],
      ['Int64', '-9223372036854775809'],
    ] as const)
      await expect(store.query(`SELECT {n:${type}} AS n`, { n })).rejects.toThrow(`Not a value of ${type}`);
    expect(
      await store.query('SELECT {a:UInt8} AS a, {b:Int8} AS b, {c:UInt64} AS c, {d:Int64} AS d', {
        a: 255,
        b: -128,
        c: '18446744073709551615',
        d: '-9223372036854775808',
      }),
    ).toEqual([{ a: 255, b: -128, c: '18446744073709551615', d: '-9223372036854775808' }]);
    // Quotes, backslashes, braces that look like placeholders, a NUL, non-ASCII and an emoji come back as they went.
    const strings = [
      "'",
      '\\',
      "\\'",
      '{v0:String}',
      '}{',
      'a\u0000b',
      'é 東京 🙂',
      '',
      "'); DROP TABLE x; --",
    ];
    for (const value of strings) {
      const [row] = await store.query<{ v: string; n: string }>(
        'SELECT {v:String} AS v, length({v:String}) AS n',
        {
          v: value,
        },
      );
      expect(row).toEqual({ v: value, n: String(Buffer.byteLength(value)) });
    }
    expect(
      await store.query<{ a: string[]; i: string[]; f: number; neg: string; big: string }>(
        'SELECT {a:Array(String)} AS a, {i:Array(UInt64)} AS i, {f:Float64} AS f, {neg:Int64} AS neg, {big:Array(UInt64)} AS big',
        { a: strings, i: [1, 2, 3], f: 0.1 + 0.2, neg: -9007199254740991, big: '[18446744073709551615,0]' },
      ),
    ).toEqual([
      {
        a: strings,
        i: ['1', '2', '3'],
        f: 0.1 + 0.2,
        neg: '-9007199254740991',
        big: ['18446744073709551615', '0'],
      },
    ]);
    // Long lists (a round's ids, a language's stop words) as one literal each.
    const ids = Array.from({ length: 60_000 }, (_, i) => i * 7);
    const words = Array.from({ length: 20_000 }, (_, i) => `w'${i}`);
    expect(
      await store.query('SELECT length({ids:Array(UInt64)}) AS n, {words:Array(String)}[20000] AS last', {
        ids,
        words,
      }),
    ).toEqual([{ n: '60000', last: "w'19999" }]);
    // Typed as the placeholder says, in a constant context too (an IN list, a time zone).
    expect(
      await store.query<{ t: string; inside: number }>(
        `SELECT toTypeName({i:Array(Int8)}) AS t, 'b' IN {a:Array(String)} AS inside,
          toString(toDateTime(0, {zone:String})) AS local`,
        { i: [-1, 0, 1], a: ['a', 'b'], zone: 'Asia/Kolkata' },
      ),
    ).toEqual([{ t: 'Array(Int8)', inside: 1, local: '1970-01-01 05:30:00' }]);
    for (const [sql, params, refusal] of [
      ['SELECT {v:String}', {}, /No value for the placeholder/],
      ['SELECT {v:UInt64}', { v: -1 }, /Not a value of UInt64/],
      ['SELECT {v:Int64}', { v: 2 ** 60 }, /Not a value of Int64/],
      ['SELECT {v:Float64}', { v: Number.NaN }, /Not a value of Float64/],
      ['SELECT {v:Array(UInt64)}', { v: '[1,2) OR 1=1' }, /Not a value of Array\(UInt64\)/],
      ['SELECT {v:String}', { v: 7 }, /Not a value of String/],
    ] as const) {
      await expect(store.query(sql, params)).rejects.toThrow(refusal);
    }
  });

  it('runs statements side by side: one sees the other running (values inlined, several connections)', async () => {
    // Bound by the engine, or on one connection, the second would start only once the first had finished.
    const slow = store.query(
      'SELECT sleepEachRow(0.5), {tag:String} AS tag FROM numbers(2) SETTINGS max_block_size = 1',
      {
        tag: 'side-by-side',
      },
    );
    let seen = 0;
    for (let look = 0; look < 20 && seen === 0; look += 1) {
      const [row] = await store.query<{ n: string }>(
        `SELECT count() AS n FROM system.processes WHERE query LIKE '%sleepEachRow%' AND query NOT LIKE '%system.processes%'`,
      );
      seen = Number(row!.n);
    }
    expect(seen).toBe(1);
    await slow;
  });

  it('refuses a second store on the same directory while the first has it open (ClickHouse locks it)', async () => {
    await expect(EmbeddedStore.open({ dataDir })).rejects.toThrow(
      `The analytics store could not open ${dataDir}: Failed to create connection`,
    );
    expect(await store.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    // What analytics:rebuild names when it refuses to start beside a server.
    expect(storeHolder(dataDir)).toBe(store.pid);
  });

  it('makes its layout when missing, finds it current after, and reports an older one', async () => {
    expect(await layoutVersion(store)).toBeNull();
    expect(await ensureLayout(store)).toEqual({ state: 'created', version: LAYOUT_VERSION });
    expect(await ensureLayout(store)).toEqual({ state: 'current', version: LAYOUT_VERSION });
    const tables = await store.query<{ name: string }>(
      `SELECT name FROM system.tables WHERE database = '${STORE_DATABASE}' ORDER BY name`,
    );
    expect(tables.map((t) => t.name)).toEqual([
      'layout',
      'lexicon',
      'post_tags',
      'posts',
      'posts_sampled',
      'profiles',
      'texts',
      'tok',
    ]);

    await store.exec('CREATE DATABASE old_store');
    await store.exec('CREATE TABLE old_store.layout (version UInt32) ENGINE = MergeTree ORDER BY tuple()');
    await store.exec(`INSERT INTO old_store.layout VALUES (${LAYOUT_VERSION - 1})`);
    expect(await ensureLayout(store, 'old_store')).toEqual({ state: 'older', version: LAYOUT_VERSION - 1 });
  });

  it('brings an older layout forward in place by its steps, its rows kept; a step missing between leaves it to a rebuild', async () => {
    const db = 'stepped';
    await ensureLayout(store, db);
    await store.exec(
      `INSERT INTO ${db}.profiles (id, platform, handle, followers, country, verified) VALUES (7, 'x', 'Ana', 10, 'PT', 0)`,
    );
    const next = LAYOUT_VERSION + 1;
    const steps = [
      {
        version: next,
        statements: (name: string) => [
          `ALTER TABLE ${name}.profiles ADD COLUMN IF NOT EXISTS handle_length UInt32 DEFAULT lengthUTF8(handle)`,
          `ALTER TABLE ${name}.profiles MATERIALIZE COLUMN handle_length`,
          `ALTER TABLE ${name}.profiles ADD PROJECTION IF NOT EXISTS by_platform (SELECT platform, count() GROUP BY platform)`,
          `ALTER TABLE ${name}.profiles MATERIALIZE PROJECTION by_platform SETTINGS mutations_sync = 1`,
        ],
      },
    ];
    // Two steps short of the target with only the last one known: nothing is done (the store is rebuilt).
    expect(await migrateLayout(store, db, { steps, target: next + 1 })).toEqual([]);
    expect(await layoutVersion(store, db)).toBe(LAYOUT_VERSION);

    expect(await migrateLayout(store, db, { steps, target: next })).toEqual([next]);
    expect(await layoutVersion(store, db)).toBe(next);
    expect(await store.query(`SELECT id, handle, handle_length FROM ${db}.profiles`)).toEqual([
      { id: '7', handle: 'Ana', handle_length: 3 },
    ]);
    const [projection] = await store.query<{ n: string }>(
      `SELECT count() AS n FROM system.projection_parts WHERE database = {db:String} AND name = 'by_platform' AND active`,
      { db },
    );
    expect(Number(projection!.n)).toBeGreaterThan(0);
    // Current now: run again, nothing to do; and a step cut short is harmless to run again whole.
    expect(await migrateLayout(store, db, { steps, target: next })).toEqual([]);
    for (const statement of steps[0]!.statements(db)) await store.exec(statement);
    expect(await store.query(`SELECT count() AS n FROM ${db}.profiles`)).toEqual([{ n: '1' }]);
  });

  it("the layout's own steps are already in a made store: running them again changes no column or projection", async () => {
    const db = 'made_now';
    await ensureLayout(store, db);
    const shape = async () =>
      store.query(
        `SELECT table, name, type, default_kind, default_expression FROM system.columns WHERE database = {db:String}
          UNION ALL SELECT table, name, 'projection', '', query FROM system.projections WHERE database = {db:String}
          ORDER BY table, name`,
        { db },
      );
    const made = await shape();
    for (const step of LAYOUT_STEPS) for (const statement of step.statements(db)) await store.exec(statement);
    expect(await shape()).toEqual(made);
    expect(LAYOUT_STEPS.every((step) => step.version <= LAYOUT_VERSION)).toBe(true);
  });

  it("writes every table's parts to disk before an insert returns, existing stores too; its position table keeps the latest row", async () => {
    const durable = async (db: string) =>
      (
        await store.query<{ name: string; q: string }>(
          `SELECT name, create_table_query AS q FROM system.tables WHERE database = {db:String} ORDER BY name`,
          { db },
        )
      ).map((t) => [t.name, /fsync_after_insert = 1, fsync_part_directory = 1/.test(t.q)]);
    await ensurePositionTable(store);
    expect(new Set((await durable(STORE_DATABASE)).map(([, fsync]) => fsync))).toEqual(new Set([true]));
    // A store made before: its tables take the setting, their rows unchanged.
    expect(await durable('old_store')).toEqual([['layout', false]]);
    await makeDurable(store, 'old_store');
    expect(await durable('old_store')).toEqual([['layout', true]]);
    expect(await store.query('SELECT version FROM old_store.layout')).toEqual([
      { version: LAYOUT_VERSION - 1 },
    ]);

    for (let seq = 1; seq <= 4; seq += 1) await recordPosition(store, { seq, corpusVersion: seq * 10 });
    expect(await storePosition(store)).toEqual({ seq: 4, corpusVersion: 40 });
    await store.exec(`OPTIMIZE TABLE ${STORE_DATABASE}.applied FINAL`);
    expect(await store.query(`SELECT seq FROM ${STORE_DATABASE}.applied`)).toEqual([{ seq: '4' }]);
    await store.exec(`DROP TABLE ${STORE_DATABASE}.applied SYNC`);
  });

  it("is rebuilt from PostgreSQL in batches: the same posts, profiles and every post's tokens", async () => {
    const progress: Array<[number, number, string]> = [];
    const result = await rebuildStore(server, store, {
      batch: 300,
      // Token rows filled a few hundred ids a statement: the ranges must leave no post out nor take one twice.
      fillIds: 700,
      onProgress: (done, total, phase) => progress.push([done, total, phase]),
    });
    const posts = await pgCount('SELECT count(*) AS n FROM posts');
    expect(posts).toBe(POSTS);
    expect(result.posts).toBe(posts);
    expect(result.profiles).toBe(await pgCount('SELECT count(*) AS n FROM profiles'));
    const loading = progress.filter(([, , phase]) => phase === 'posts');
    const filling = progress.filter(([, , phase]) => phase === 'tokens');
    expect(loading.at(-1)).toEqual([posts, posts, 'posts']);
    expect(loading.length).toBeGreaterThan(posts / 300); // one step a batch
    expect(progress.slice(loading.length)).toEqual(filling); // then the fills
    expect(filling.at(-1)).toEqual([posts, posts, 'tokens']);
    expect(filling.length).toBeGreaterThan(posts / 700);
    const [counts] = await store.query<{
      posts: string;
      profiles: string;
      tokens: string;
      sampled: string;
      texts: string;
    }>(
      `SELECT (SELECT count() FROM ${STORE_DATABASE}.posts) AS posts, (SELECT count() FROM ${STORE_DATABASE}.profiles) AS profiles,
        (SELECT countIf(notEmpty(pos)) FROM ${STORE_DATABASE}.tok) AS tokens,
        (SELECT uniqExact(id) FROM ${STORE_DATABASE}.posts_sampled) + (SELECT count() FROM ${STORE_DATABASE}.posts_sampled) AS sampled,
        (SELECT uniqExact(id) FROM ${STORE_DATABASE}.texts) + (SELECT count() FROM ${STORE_DATABASE}.texts) AS texts`,
    );
    // Every post with grams has its text once in the texts table (and some of the corpus's posts have grams).
    const texts = (await server.pool.query<{ text: string }>('SELECT text FROM posts')).rows.map(
      (row) => row.text,
    );
    const withGrams = texts.filter((text) => textGrams(text).length > 0).length;
    expect(withGrams).toBeGreaterThan(0);
    expect(Number(counts!.texts)).toBe(2 * withGrams);
    expect(Number(counts!.posts)).toBe(posts);
    expect(Number(counts!.sampled)).toBe(2 * posts); // each post once
    expect(Number(counts!.profiles)).toBe(result.profiles);
    // A row with positions for each distinct word of each post, as the reference tokenizer splits the texts.
    expect(Number(counts!.tokens)).toBe(texts.reduce((sum, text) => sum + new Set(words(text)).size, 0));
    expect(await ensureLayout(store)).toEqual({ state: 'current', version: LAYOUT_VERSION });
  });

  it("counts each word's posts as the reference tokenizer splits their texts", async () => {
    // Common and rare words of the corpus, by the reference tokenizer (test/support/reference/tokens.ts).
    const texts = (await server.pool.query<{ text: string }>('SELECT text FROM posts')).rows.map(
      (row) => row.text,
    );
    const postsOf = new Map<string, number>();
    for (const text of texts)
      for (const word of new Set(words(text))) postsOf.set(word, (postsOf.get(word) ?? 0) + 1);
    const latin = [...postsOf].filter(([word]) => /^[a-z]+$/.test(word));
    const common = latin.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3);
    const rare = latin
      .filter(([, n]) => n >= 2 && n <= 20)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .slice(0, 3);
    const beyond = [...postsOf].filter(([word]) => /\P{ASCII}/u.test(word)).slice(0, 3);
    const picked = [...common, ...rare, ...beyond];
    expect(picked).toHaveLength(9);
    for (const [word, expected] of picked) {
      const [got] = await store.query<{ tok: string; posts: string; lexicon: string }>(
        `SELECT (SELECT count() FROM ${STORE_DATABASE}.tok WHERE tok = sipHash64({w:String})) AS tok,
          (SELECT countIf(has(ptoks, sipHash64({w:String}))) FROM ${STORE_DATABASE}.posts) AS posts,
          (SELECT count() FROM ${STORE_DATABASE}.lexicon FINAL WHERE word = {w:String}) AS lexicon`,
        { w: word },
      );
      expect({
        word,
        tok: Number(got!.tok),
        posts: Number(got!.posts),
        lexicon: Number(got!.lexicon),
      }).toEqual({
        word,
        tok: expected,
        posts: expected,
        lexicon: 1,
      });
    }
  });

  it("puts each text in its sample hash's stretch as textStretch says, for every hash", async () => {
    await ensureLayout(store, 'stretches');
    try {
      // An odd multiplier: ids 0–65535 have every hash once.
      await store.exec(
        `INSERT INTO stretches.texts (scripts, ts, id, ltext) SELECT 4, 0, number, '' FROM numbers(65536)`,
      );
      const rows = await store.query<{ hb: number; lo: number; hi: number; n: string; wrong: string }>(
        `SELECT hb, min(h) AS lo, max(h) AS hi, count() AS n, countIf(h != ${sampleHash('id')}) AS wrong
        FROM stretches.texts GROUP BY hb ORDER BY hb`,
      );
      const expected = new Map<number, { hb: number; lo: number; hi: number; n: string; wrong: string }>();
      for (let h = 0; h < 65536; h++) {
        const hb = textStretch(h);
        const known = expected.get(hb) ?? { hb, lo: h, hi: h, n: '0', wrong: '0' };
        expected.set(hb, { ...known, hi: h, n: String(Number(known.n) + 1) });
      }
      expect(rows).toEqual([...expected.values()]);
      // The pilot's posts (below 1024) are stretch 0 alone; the last stretch holds the top half of the hashes.
      expect(rows[0]).toEqual({ hb: 0, lo: 0, hi: 1023, n: '1024', wrong: '0' });
      expect(rows.at(-1)).toEqual({ hb: 6, lo: 32768, hi: 65535, n: '32768', wrong: '0' });
    } finally {
      await store.exec('DROP DATABASE IF EXISTS stretches');
    }
  });

  it("classes gram characters by script as query/scripts.ts does, and its classes are migration 0011's gram characters", async () => {
    // The gram characters: the class post_text_grams keeps (migration 0011), as ranges of code points.
    const migration = readFileSync(
      resolve(import.meta.dirname, '../../../server/db/migrations/0011_post_text_grams.sql'),
      'utf8',
    );
    const kept = /regexp_replace\(lower\(t\), '\[\^(.+?)\]\+'/.exec(migration)![1]!;
    const code = (c: string) => (c.startsWith('\\') ? Number.parseInt(c.slice(2), 16) : c.codePointAt(0)!);
    const pgRanges = [
      ...kept.matchAll(
        /(\\U[0-9a-fA-F]{8}|\\u[0-9a-fA-F]{4}|[^\\-])-(\\U[0-9a-fA-F]{8}|\\u[0-9a-fA-F]{4}|[^\\-])/gu,
      ),
    ]
      .map((m) => [code(m[1]!), code(m[2]!)] as const)
      .sort((a, b) => a[0] - b[0]);
    expect(pgRanges.length).toBeGreaterThan(10);
    const ours = SCRIPT_CLASSES.flat().sort((a, b) => a[0] - b[0]);
    expect(ours).toEqual(pgRanges);

    // Each range's edges and their neighbours (surrogates aside), classed by the store as here.
    const chars = ours
      .flatMap(([lo, hi]) => [lo - 1, lo, hi, hi + 1])
      .filter((c) => c < 0xd800 || c > 0xdfff)
      .map((c) => String.fromCodePoint(c));
    const grams = [...chars.map((c) => [c]), chars.slice(0, 9), ['서울', '東京', 'タワ', 'ก', '🔥'], []];
    const masks: number[] = [];
    for (const g of grams) {
      const [row] = await store.query<{ m: number }>(`SELECT ${scriptsSql('{g:Array(String)}')} AS m`, { g });
      masks.push(row!.m);
    }
    expect(masks).toEqual(grams.map((g) => scriptsOf(g)));
    expect(scriptsOf(['서울', '東京', 'タワ', 'ก', '🔥'])).toBe(31);
    expect(masksHolding(4)).toEqual([4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31]);
  });

  it('rejects the query in flight with a clear error when its process is killed, and a new store opens the same data', async () => {
    const slow = store.query('SELECT sum(number) FROM numbers(1000000000000)');
    const after = slow.catch((error: unknown) => error);
    process.kill(store.pid!, 'SIGKILL');
    const error = await after;
    expect(error).toBeInstanceOf(AnalyticsStoreStopped);
    expect((error as Error).message).toMatch(/The analytics store's process stopped \(killed by SIGKILL\)/);
    await expect(store.query('SELECT 1')).rejects.toThrow(/process stopped \(killed by SIGKILL\)/);
    await store.close();

    expect(storeHolder(dataDir)).toBeNull(); // its status file names a process that is gone
    store = await EmbeddedStore.open({ dataDir });
    expect(await ensureLayout(store)).toEqual({ state: 'current', version: LAYOUT_VERSION });
    const [row] = await store.query<{ n: string }>(`SELECT count() AS n FROM ${STORE_DATABASE}.posts`);
    expect(Number(row!.n)).toBe(POSTS);
  });
});

describe('analytics store, a query past its time', () => {
  it('is rejected after timeoutMs, and the process still busy with it is killed: it stopped answering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'murmur-analytics-timeout-'));
    const impatient = await EmbeddedStore.open({ dataDir: dir, timeoutMs: 1_000, connections: 2 });
    const pid = impatient.pid!;
    try {
      // Another connection's statement, sent just after: rejected when the process is killed (its own limit is later).
      const burn = impatient.query('SELECT sum(number) FROM numbers(1000000000000)');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const beside = impatient.query('SELECT sum(number) FROM numbers(1000000000000)');
      await expect(burn).rejects.toThrow(
        /The analytics store did not answer within 1000 ms: SELECT sum\(number\)/,
      );
      await expect(beside).rejects.toThrow(AnalyticsStoreStopped);
      expect(await impatient.ended).toMatch(
        new RegExp(`^${STOPPED_ANSWERING}: no answer to a statement within 1000 ms; killed`),
      );
      expect(() => process.kill(pid, 0)).toThrow();
      await expect(impatient.query('SELECT 1')).rejects.toThrow(/stopped answering/);
    } finally {
      await impatient.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('analytics store, a parent that dies', () => {
  it('leaves no process behind: the child exits after closeGraceMs even with a query still running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'murmur-analytics-orphan-'));
    const storeModule = resolve(import.meta.dirname, '../../../server/analytics/store.ts');
    const code = `import { EmbeddedStore } from ${JSON.stringify(storeModule)};
      const store = await EmbeddedStore.open({ dataDir: ${JSON.stringify(dir)}, closeGraceMs: 500 });
      store.query('SELECT sum(number) FROM numbers(1000000000000)').catch(() => undefined);
      console.log(store.pid);`;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines = createInterface({ input: parent.stdout })[Symbol.asyncIterator]();
      const childPid = Number((await lines.next()).value);
      expect(childPid).toBeGreaterThan(0);
      const alive = () => {
        try {
          process.kill(childPid, 0);
          return true;
        } catch {
          return false;
        }
      };
      expect(alive()).toBe(true);
      parent.kill('SIGKILL');
      await vi.waitFor(() => expect(alive()).toBe(false), { timeout: 20_000, interval: 100 });
    } finally {
      parent.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
