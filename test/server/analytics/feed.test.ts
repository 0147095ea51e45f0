// The change feed into the analytics store: a rebuild registers the store as the outbox's consumer and holds its
// snapshot's position; the applier brings every later batch (new, changed and removed posts, profiles, an emptied
// corpus) from PostgreSQL's current rows, and reconcile() tells a store it can bring up to date from one to rebuild.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRound, reconcile } from '@server/analytics/applier';
import { consumerPosition, readOutbox, unregisterConsumer } from '@server/analytics/outbox';
import { recordPosition, storePosition, type StorePosition } from '@server/analytics/position';
import { SCRIPT_CLASSES, scriptsOf } from '@server/analytics/matching/scripts';
import { textGrams } from '@server/analytics/matching/words';
import { rebuildStore } from '@server/analytics/rebuild';
import { type AnalyticsStore, EmbeddedStore } from '@server/analytics/store';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { postgresHoldings, storeHoldings } from '@test/support/analytics-compare';
import { tokens } from '@test/support/reference/tokens';
import { createTestServer, type TestServer } from '@test/support/server-harness';

let server: TestServer;
let dataDir: string;
let store: AnalyticsStore;
let authorId: number;
let made = 0;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generateCorpus(server.pool, { seed: 7, posts: 400, end: Date.UTC(2025, 5, 1), batchSize: 150 });
  dataDir = mkdtempSync(join(tmpdir(), 'murmur-analytics-feed-'));
  store = await EmbeddedStore.open({ dataDir });
  [authorId] = (await insertProfiles(server.db, [
    { platform: 'x', externalId: 'feed-author', handle: 'feed', displayName: 'Feed', followers: 5 },
  ])) as [number];
});
afterAll(async () => {
  await store?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (text: string) => ({
  authorId,
  platform: 'x' as const,
  externalId: `feed-${++made}`,
  text,
  language: 'en',
  postedAt: new Date('2025-05-20T12:00:00Z'),
  likes: 3,
  comments: 0,
  shares: 0,
  sentiment: 0,
  sentimentLabel: 'neutral' as const,
});

const deps = () => ({ db: server.db, pool: server.pool, store });

/** Applies every round there is; the position reached. */
async function applyAll(from: StorePosition): Promise<StorePosition> {
  let position = from;
  for (let next = await applyRound(deps(), position); next; next = await applyRound(deps(), position)) {
    position = next;
  }
  return position;
}

async function expectSame() {
  const expected = await postgresHoldings(server.pool);
  expect(await storeHoldings(store)).toEqual(expected);
}

describe('the change feed', () => {
  let position: StorePosition;

  it("a rebuild registers the store as the consumer and holds its snapshot's position", async () => {
    expect(await consumerPosition(server.db)).toBeNull();
    const result = await rebuildStore(server, store);
    const consumer = await consumerPosition(server.db);
    expect(consumer).not.toBeNull();
    position = result.position;
    expect(await storePosition(store)).toEqual(position);
    expect(position.seq).toBe(consumer!.appliedSeq);
    expect(position.corpusVersion).toBe(consumer!.corpusVersion);
    expect(await reconcile(deps())).toEqual({ state: 'current', position });
    await expectSame();
  });

  it('applies new, changed and removed posts and profiles, in order, each once', async () => {
    const ids = await insertPosts(server.db, [post('alpha beta gamma'), post('delta epsilon 東京タワー')]);
    await server.pool.query(
      `SELECT corpus_update_posts('id = ${ids[0]}', $$text = 'Zeta eta theta iota 서울에서', likes = 9$$)`,
    );
    const old = (await server.pool.query<{ id: string }>('SELECT id::text FROM posts ORDER BY id LIMIT 3'))
      .rows;
    await server.pool.query(`SELECT corpus_update_posts('id = ${old[0]!.id}', 'likes = likes + 100')`);
    await server.pool.query(`SELECT corpus_delete_posts('id = ${old[1]!.id}')`);
    await server.pool.query(`SELECT corpus_update_profiles('id = ${authorId}', 'followers = 77')`);
    const pending = await readOutbox(server.db, position.seq, 100);
    expect(pending.length).toBe(5);

    position = await applyAll(position);
    expect(position.seq).toBe(pending.at(-1)!.seq);
    expect(await consumerPosition(server.db)).toMatchObject({ appliedSeq: position.seq });
    expect(await readOutbox(server.db, 0, 100)).toEqual([]); // trimmed
    await expectSame();
    const [changed] = await store.query<{ likes: number; hits: string }>(
      `SELECT likes, (SELECT count() FROM murmur.tok WHERE post = ${ids[0]} AND tok = sipHash64('theta')) AS hits
       FROM murmur.posts WHERE id = ${ids[0]}`,
    );
    expect(changed).toEqual({ likes: 9, hits: '1' });
    // The texts of the posts with grams (a substring term's recheck), as they are now.
    const texts = await store.query<{ id: string; ltext: string }>(
      `SELECT toString(id) AS id, ltext FROM murmur.texts WHERE id IN (${ids.join(',')}) ORDER BY id`,
    );
    expect(texts).toEqual([
      { id: String(ids[0]), ltext: 'zeta eta theta iota 서울에서' },
      { id: String(ids[1]), ltext: 'delta epsilon 東京タワー' },
    ]);
  });

  it("carries each post's text, and computes its words and positions by the reference rule, whatever its characters", async () => {
    // The rows travel as JSON lines written by PostgreSQL's COPY (rows.ts, copyLines): newlines, tabs, quotes,
    // backslashes, the COPY's own quote and delimiter (0x01, 0x02), other control characters, and text beyond ASCII.
    // The words are the reference tokenizer's (test/support/reference/tokens.ts), those where PostgreSQL's parser
    // differed too: links, e-mail addresses, hyphens, decimals, fractions, İ and a final sigma. The conversation's
    // words (`toks`) are those outside links, addresses and host names (layout.ts, LINK_RUN).
    const texts = [
      'first line\nsecond line\r\nthird\ttabbed "quoted" back\\slash \\n not a newline',
      'marks \u0001 and \u0002 and \u0007 bell \u007f del \u001f unit',
      '🚀 café Ünïcödé ÀÉÎ 東京タワー 서울에서 naïve',
      ' ',
      "see https://x.com/a-b?q=1 or mail me@ex.org: covid-19 at 1.5½ don't İstanbul ΟΔΟΣ the the THE",
      'e\u0301 x🔥y a_b #LatteArt @someone www.example.com end. 東京\u3000https://a.jp/b 日本',
    ];
    const conversation: Record<number, string[]> = {
      4: [
        'see',
        'or',
        'mail',
        'covid',
        '19',
        'at',
        'don',
        't',
        'i\u0307stanbul',
        '\u03bf\u03b4\u03bf\u03c2',
        'the',
      ],
      5: ['e\u0301', 'x', 'y', 'a', 'b', 'latteart', 'someone', 'end', '東京', '日本'],
    };
    const ids = await insertPosts(server.db, texts.map(post));
    position = await applyAll(position);
    await expectSame();
    const held = await store.query<{
      id: string;
      text: string;
      ptoks: string[];
      pos: number[][];
      toks: string[];
      missing: string;
    }>(
      `SELECT toString(id) AS id, text, ptoks, pos, toks,
         toString(length(arrayFilter(t -> t NOT IN (SELECT tok FROM murmur.lexicon), ptoks))) AS missing
       FROM murmur.posts WHERE id IN (${ids.join(',')}) ORDER BY id`,
    );
    expect(held.map((row) => row.text)).toEqual(texts);
    for (const [i, row] of held.entries()) {
      const expected = new Map<string, number[]>();
      for (const token of tokens(row.text))
        expected.set(token.word, [...(expected.get(token.word) ?? []), token.pos]);
      const words = [...expected.keys()];
      const [hashes] = await store.query<{ h: string[] }>(
        'SELECT arrayMap(w -> toString(sipHash64(w)), {w:Array(String)}) AS h',
        { w: words },
      );
      const byHash = new Map(hashes!.h.map((hash, i) => [hash, words[i]!]));
      const word = (tok: string) => byHash.get(tok) ?? `unknown ${tok}`;
      const got = new Map(row.ptoks.map((tok, k) => [word(tok), row.pos[k]]));
      expect({ text: row.text, words: got, missing: row.missing }).toEqual({
        text: row.text,
        words: expected,
        missing: '0',
      });
      // Without links, each word once.
      const outside = conversation[i] ?? words;
      expect({ text: row.text, toks: row.toks.map(word).sort() }).toEqual({
        text: row.text,
        toks: [...outside].sort(),
      });
    }
  });

  it("computes each post's grams and their scripts as the query side computes a text's", async () => {
    // The store computes the grams from the lowered text (query/scripts.ts, postGramsSql); the query side's textGrams
    // (query/words.ts, PostgreSQL's post_text_grams ported) is the reference. Every class's edges and their neighbours,
    // runs of one, two and three characters, upper case beyond ASCII that lowers across a class's edge (Ⓐ into the
    // symbols' class, Ｆ out of the half-width forms), and texts with no gram.
    const edges = SCRIPT_CLASSES.flat()
      .flatMap(([lo, hi]) => [lo - 1, lo, hi, hi + 1])
      .filter((c) => c < 0xd800 || c > 0xdfff)
      .map((c) => String.fromCodePoint(c));
    const texts = [
      edges.join(''),
      edges.join(' x '),
      '서울 a 東京タワー, ok! 노바X ÀÉÎ Ⓐⓑ ＦＵＬＬ ｶﾀｶﾅ ก็ 🔥❤️ 👍🏽 𠀀𪚥 —…',
      'a 서 b 서울 c 서울역 d',
      'İstanbul ǅ ΣΑΣ 東',
      'plain ascii only',
      ' ',
    ];
    const ids = await insertPosts(server.db, texts.map(post));
    position = await applyAll(position);
    for (const [i, id] of ids.entries()) {
      const grams = textGrams(texts[i]!);
      const [held] = await store.query<{ same: number; scripts: number; n: string }>(
        `SELECT arraySort(gtoks) = arraySort(arrayDistinct(arrayMap(g -> sipHash64('g', g), {g:Array(String)})))
           AS same, scripts, toString(length(gtoks)) AS n
         FROM murmur.posts WHERE id = {id:UInt64}`,
        { g: grams, id },
      );
      expect({ id, ...held }).toEqual({
        id,
        same: 1,
        scripts: scriptsOf(grams),
        n: String(grams.length),
      });
    }
    await expectSame();
  });

  it('writes a profile named again only when it differs, and leaves one row of it', async () => {
    // A second row of the profile, which the applier must not take for the profile unchanged.
    await store.exec(`INSERT INTO murmur.profiles SELECT * FROM murmur.profiles WHERE id = ${authorId}`);
    await server.pool.query(`SELECT corpus_update_profiles('id = ${authorId}', 'followers = followers')`);
    expect((await readOutbox(server.db, position.seq, 10)).at(-1)?.profileIds).toEqual([authorId]);
    position = await applyAll(position);
    await expectSame();
  });

  const crashAt = (at: string) => ({
    ...deps(),
    at: (point: string) => {
      if (point === at) throw new Error(`crash at ${at}`);
    },
  });

  it('gives the same store when a round is applied again after a crash before its position was recorded', async () => {
    await insertPosts(server.db, [post('kappa lambda'), post('mu nu xi')]);
    await server.pool.query(`SELECT corpus_update_posts('author_id = ${authorId}', 'likes = likes + 1')`);
    await expect(applyRound(crashAt('applied'), position)).rejects.toThrow('crash at applied');
    expect(await storePosition(store)).toEqual(position); // the rows are in, the position is not
    expect(await reconcile(deps())).toEqual({ state: 'current', position });
    position = await applyAll(position);
    await expectSame();
  });

  it('completes a round whose position the store recorded and PostgreSQL did not', async () => {
    await insertPosts(server.db, [post('rho sigma')]);
    await server.pool.query(`SELECT corpus_update_profiles('id = ${authorId}', 'followers = 78')`);
    await expect(applyRound(crashAt('recorded'), position)).rejects.toThrow('crash at recorded');
    const held = (await storePosition(store))!;
    expect(held.seq).toBeGreaterThan((await consumerPosition(server.db))!.appliedSeq);
    expect(await reconcile(deps())).toEqual({ state: 'current', position: held });
    expect((await consumerPosition(server.db))!.appliedSeq).toBe(held.seq);
    position = held;
    expect(await applyRound(deps(), position)).toBeNull();
    await expectSame();
  });

  it('empties the store when the corpus is truncated, then takes what follows', async () => {
    await insertPosts(server.db, [post('before the truncation')]);
    await server.pool.query('SELECT corpus_truncate()');
    [authorId] = (await insertProfiles(server.db, [
      { platform: 'x', externalId: 'feed-author-2', handle: 'feed2', displayName: 'Feed', followers: 1 },
    ])) as [number];
    await insertPosts(server.db, [post('omicron pi')]);
    // A reset batch begins a round of its own: the round before it says it left batches it saw, the last one none.
    const { rows } = await server.pool.query<{ seq: string }>('SELECT max(seq) AS seq FROM analytics_outbox');
    const rounds: Array<{ seq: number; left: boolean }> = [];
    let reached: StorePosition | null = position;
    while (reached) {
      let left = false;
      reached = await applyRound({ ...deps(), left: (more: boolean) => void (left = more) }, reached);
      if (reached) {
        rounds.push({ seq: reached.seq, left });
        position = reached;
      }
    }
    expect(rounds.map((round) => round.left)).toEqual([true, false]);
    expect(rounds.at(-1)!.seq).toBe(Number(rows[0]!.seq));
    const held = await storeHoldings(store);
    expect(Object.keys(held.posts)).toHaveLength(1);
    await expectSame();
  });

  it('rebuilds a store ahead of what PostgreSQL has, or behind what it trimmed', async () => {
    await recordPosition(store, { seq: position.seq + 10, corpusVersion: position.corpusVersion + 10 });
    expect(await reconcile(deps())).toEqual({
      state: 'rebuild',
      why: `the store holds batch ${position.seq + 10} (corpus version ${position.corpusVersion + 10}), which PostgreSQL does not have`,
    });
    const rebuilt = await rebuildStore(server, store);
    expect(await reconcile(deps())).toEqual({ state: 'current', position: rebuilt.position });

    await unregisterConsumer(server.db);
    expect(await reconcile(deps())).toEqual({
      state: 'rebuild',
      why: 'the store is not registered as the outbox consumer',
    });
  });
});
