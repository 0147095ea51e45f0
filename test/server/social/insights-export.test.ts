// The CSV exports of the drill-down lists: every row and its order equal to the JSON pages' for the same body (over
// several export pages), the comment lines and the header, quoting (RFC 4180) and neutralised formulas, max_rows,
// who may export, JSON errors before the first byte (the analytics store's 503 among them), a database failure
// mid-stream that breaks the download off (and is logged), and a client that goes away stopping the paging.
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AnalyticsStoreUnreachable } from '@server/analytics/store';
import { buildApp } from '@server/app';
import { wallClockFormatter } from '@contract/zoned-time';
import type { PostsResponse, ProfilesResponse } from '@contract/insights-responses';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, createWorkspace, type Person, type Team } from '@test/support/workspaces.fixtures';
import { insertCorpus } from '@test/support/insights.fixtures';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';

let server: TestServer;
let viewer: Person;
let team: Team;
let workspaceId: string;
const ZONE = 'Europe/Paris';
const RANGE = { from: '2026-10-08T00:00:00Z', to: '2026-11-10T00:00:00Z' };

/** Texts a spreadsheet would misread, or that need quotes. */
const AWKWARD = [
  '=HYPERLINK("http://evil.test","click") #csvcheck',
  '+1 for this #csvcheck',
  '-2 from me #csvcheck',
  '@hana, look #csvcheck',
  '\tindented #csvcheck',
  '\rcarriage #csvcheck',
  'commas, "quotes" and\r\nnew lines\nhere #csvcheck',
  'plain #csvcheck',
  // Whitespace before the formula, which spreadsheets skip; full-width formula characters.
  ' =SUM(A1:A9) #csvcheck',
  '\n@hana, look #csvcheck',
  '\u3000+1 #csvcheck',
  '\uFF1D1+1 #csvcheck',
  '\uFF0B1 #csvcheck',
  '\uFF0D2 #csvcheck',
  '\uFF20hana #csvcheck',
  ' plain after a space #csvcheck',
];

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  team = await createTeam(server);
  workspaceId = (
    await createWorkspace(server, [[viewer, 'viewer']], { timeZone: ZONE, name: 'Café Ünïcode & Co' })
  ).id;
  await insertCorpus(server);
  const [authorId] = await insertProfiles(server.db, [
    {
      platform: 'x',
      externalId: 'csv-author',
      handle: '=cmd',
      displayName: '@Evil, "Inc"',
      followers: 12,
    },
  ]);
  // Enough posts for several export pages of 5 000, three at each instant (ties broken by the id across pages).
  const bulk = Array.from({ length: 11_000 }, (_, i) => ({
    platform: 'x' as const,
    externalId: `bulk${i}`,
    authorId: authorId!,
    text: `bulk post ${i} #bulk`,
    language: 'en',
    postedAt: new Date(Date.parse('2026-10-20T12:00:00Z') + Math.floor(i / 3) * 20_000),
    likes: i % 7,
    comments: i % 3,
    hashtags: ['bulk'],
  }));
  for (let i = 0; i < bulk.length; i += 2_000) await insertPosts(server.db, bulk.slice(i, i + 2_000));
  await insertPosts(
    server.db,
    AWKWARD.map((text, i) => ({
      platform: 'x' as const,
      externalId: `awkward${i}`,
      authorId: authorId!,
      text,
      language: 'en',
      postedAt: new Date(Date.parse('2026-11-02T10:00:00Z') + i * 60_000),
      likes: i,
      views: i % 2 ? 100 * i : null,
      url: i === 0 ? 'https://example.com/a,b' : null,
      hashtags: ['csvcheck'],
      sentiment: -0.5,
      sentimentLabel: 'negative' as const,
    })),
  );
  // Every list below is read from the store: each test starts once it holds every batch written above.
  await server.storeCaughtUp();
});
afterAll(() => server.close());

/** RFC 4180: records of fields, quoted fields holding commas, doubled quotes, CR and LF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      i += 1;
      for (;;) {
        const end = text.indexOf('"', i);
        if (end < 0) throw new Error('Unclosed quote');
        field += text.slice(i, end);
        i = end + 1;
        if (text[i] !== '"') break;
        field += '"';
        i += 1;
      }
    } else if (text[i] === ',') {
      record.push(field);
      field = '';
      i += 1;
    } else if (text.startsWith('\r\n', i)) {
      record.push(field);
      records.push(record);
      [record, field] = [[], ''];
      i += 2;
    } else {
      const next = text.slice(i).search(/[",]|\r\n/);
      const end = next < 0 ? text.length : i + next;
      field += text.slice(i, end);
      i = end;
    }
  }
  if (field || record.length) throw new Error('The file does not end with CRLF');
  return records;
}

/** The file's comment lines (without "# ") and its records after them. */
function readExport(body: string) {
  const lines = body.split('\r\n');
  const comments = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith('#')),
  );
  const records = parseCsv(body.split('\r\n').slice(comments.length).join('\r\n'));
  return { comments: comments.map((line) => line.slice(2)), header: records[0]!, rows: records.slice(1) };
}

const exportCall = (
  person: Person | null,
  what: string,
  body: Record<string, unknown>,
  workspace = workspaceId,
) =>
  as(server, person, {
    method: 'POST',
    url: `/social/insights/export/${what}`,
    payload: { workspace_id: workspace, filters: RANGE, ...body },
  });

async function jsonPages<T extends PostsResponse | ProfilesResponse>(
  url: string,
  body: Record<string, unknown>,
) {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const res = await as(server, viewer, {
      method: 'POST',
      url: `/social/insights/${url}`,
      payload: { workspace_id: workspaceId, filters: RANGE, limit: 100, ...body, ...(cursor && { cursor }) },
    });
    expect(res.statusCode, res.body).toBe(200);
    all.push(res.json<T>());
    cursor = all.at(-1)!.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

/** The wall clock of an instant in the zone, "YYYY-MM-DD HH:MM:SS". */
const local = (iso: string) =>
  new Intl.DateTimeFormat('sv-SE', {
    timeZone: ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(new Date(iso));

/**
 * Text as the file must hold it (once parsed): with an apostrophe before a formula's first character (full-width
 * ones included), or before the whitespace in front of it.
 */
const neutral = (text: string) =>
  /^(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/.test(text) ? `'${text}` : text;
const str = (value: number | null) => (value === null ? '' : String(value));

const POST_HEADER = [
  'id',
  'platform',
  'posted_at',
  'posted_at_local',
  'author_handle',
  'author_name',
  'author_followers',
  'text',
  'url',
  'language',
  'kind',
  'media',
  'likes',
  'comments',
  'shares',
  'views',
  'engagement',
  'sentiment_label',
  'sentiment',
  'tags',
];

const postFields = (p: PostsResponse['posts'][number], overperformance: boolean) => [
  String(p.id),
  p.platform,
  p.posted_at,
  local(p.posted_at),
  neutral(p.author.handle),
  neutral(p.author.display_name),
  String(p.author.followers),
  neutral(p.text),
  p.url === null ? '' : neutral(p.url),
  p.language ?? '',
  p.kind,
  p.media,
  String(p.likes),
  String(p.comments),
  String(p.shares),
  str(p.views),
  String(p.engagement),
  p.sentiment_label,
  String(p.sentiment),
  // The workspace's tags the post carries: none here (tests/server/tags/tags-in-dashboards.test.ts has them).
  '',
  ...(overperformance ? [str(p.overperformance)] : []),
];

describe('the posts export', () => {
  const REFINE = [{ field: 'kind', values: ['repost'], exclude: true }];
  it.each([
    ['recency', '', REFINE],
    ['engagement', '', REFINE],
    ['overperformance', '', [{ field: 'hashtag', values: ['launch'], exclude: true }]],
    ['recency', 'bulk OR coffee', [{ field: 'hour_of_week', values: [{ day: 2, hour: 14 }], exclude: true }]],
  ] as const)(
    'by %s, query %j, refine %j: the rows of the JSON pages, in their order',
    async (sort, query, refine) => {
      const pages = await jsonPages<PostsResponse>('filtered-posts', { query, sort, refine });
      const listed = pages.flatMap((page) => page.posts);
      expect(listed.length).toBeGreaterThan(10_000);
      const res = await exportCall(viewer, 'posts', { query, sort, refine });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      const today = new Intl.DateTimeFormat('sv-SE', { timeZone: ZONE }).format(new Date());
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="murmur-posts-cafe-unicode-co-${today}.csv"`,
      );
      const file = readExport(res.body);
      const overperformance = sort === 'overperformance';
      expect(file.header).toEqual([...POST_HEADER, ...(overperformance ? ['overperformance'] : [])]);
      expect(file.rows.length).toBe(listed.length);
      expect(file.rows).toEqual(listed.map((p) => postFields(p, overperformance)));
      expect(file.comments).toEqual([
        'Murmur export: posts',
        `Workspace time zone: ${ZONE}`,
        'Range: 2026-10-08 02:00:00 to 2026-11-10 01:00:00 Europe/Paris (2026-10-08T00:00:00.000Z to ' +
          '2026-11-10T00:00:00.000Z UTC); from inclusive, to exclusive',
        `Query: ${query || 'none (every post)'}`,
        `Counted: ${pages[0]!.counted}`,
        `Rows: the first 100000 at most, of ${pages[0]!.total} posts when the export started`,
      ]);
    },
  );

  it('writes at most max_rows rows: the first of the list', async () => {
    const pages = await jsonPages<PostsResponse>('filtered-posts', { query: '', sort: 'engagement' });
    const listed = pages.flatMap((page) => page.posts);
    for (const max of [1, 7, 5_000, 5_001, 10_234]) {
      const file = readExport(
        (await exportCall(viewer, 'posts', { query: '', sort: 'engagement', max_rows: max })).body,
      );
      expect(file.rows.map((row) => Number(row[0]))).toEqual(listed.slice(0, max).map((p) => p.id));
      expect(file.comments.at(-1)).toBe(
        `Rows: the first ${max} at most, of ${listed.length} posts when the export started`,
      );
    }
  });

  it('quotes fields per RFC 4180 and neutralises formulas', async () => {
    const res = await exportCall(viewer, 'posts', { query: '#csvcheck', sort: 'recency' });
    const file = readExport(res.body);
    const byText = new Map(file.rows.map((row) => [row[7]!, row]));
    expect([...byText.keys()].sort()).toEqual(AWKWARD.map(neutral).sort());
    expect(byText.get('\'=HYPERLINK("http://evil.test","click") #csvcheck')).toBeDefined();
    expect(byText.get("'\rcarriage #csvcheck")).toBeDefined();
    const row = byText.get('plain #csvcheck')!;
    expect(row.slice(4, 6)).toEqual(["'=cmd", '\'@Evil, "Inc"']);
    // Numbers are written as numbers: a negative sentiment stays one.
    expect(row[18]).toBe('-0.5');
    // The raw text: quoted where needed, quotes doubled.
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil.test"",""click"") #csvcheck"`);
    expect(res.body).toContain(`"commas, ""quotes"" and\r\nnew lines\nhere #csvcheck"`);
    expect(res.body).toContain(`,'+1 for this #csvcheck,`);
    expect(res.body).toContain(`,"https://example.com/a,b",`);
    expect(res.body).toContain(`,' =SUM(A1:A9) #csvcheck,`);
    expect(res.body).toContain(`,"'\n@hana, look #csvcheck",`);
    expect(res.body).toContain(`,'\uFF1D1+1 #csvcheck,`);
    expect(res.body).toContain(`, plain after a space #csvcheck,`);
  });

  it('writes the comment lines and the header of an empty list', async () => {
    const file = readExport((await exportCall(viewer, 'posts', { query: 'zzzunmatched' })).body);
    expect(file.header).toEqual(POST_HEADER);
    expect(file.rows).toEqual([]);
    expect(file.comments.at(-1)).toBe('Rows: the first 100000 at most, of 0 posts when the export started');
  });
});

describe('posted_at_local', () => {
  it.each([
    ['America/New_York', '2026-03-08T00:00:00Z'],
    ['America/New_York', '2026-11-01T00:00:00Z'],
    ['Europe/Paris', '2026-10-25T00:00:00Z'],
    // Half-hour changes (+10:30 / +11), a :45 offset with DST, a change at 03:00 local, seconds in the offset.
    ['Australia/Lord_Howe', '2026-04-04T12:00:00Z'],
    ['Pacific/Chatham', '2026-09-26T12:00:00Z'],
    ['America/St_Johns', '2026-11-01T00:00:00Z'],
    ['Asia/Kathmandu', '2026-01-01T00:00:00Z'],
    ['Europe/Amsterdam', '1900-06-01T00:00:00Z'],
  ])('in %s around %s is the wall clock Intl gives', (zone, around) => {
    const format = wallClockFormatter(zone);
    const intl = new Intl.DateTimeFormat('sv-SE', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    const start = Date.parse(around);
    // Every 7 min 13.5 s over two days, twice (the second pass reads the cached hours).
    for (let pass = 0; pass < 2; pass += 1) {
      for (let at = start; at < start + 2 * 86_400_000; at += 433_500) {
        expect(format(new Date(at)), new Date(at).toISOString()).toBe(intl.format(new Date(at)));
      }
    }
  });
});

describe('the profiles export', () => {
  it.each(['mentions', 'followers', 'engagement'] as const)(
    'by %s: the rows of the JSON pages',
    async (sort) => {
      const refine = [{ field: 'followers', values: [{ min: 10 }] }];
      const listed = (
        await jsonPages<ProfilesResponse>('filtered-profiles', { query: '', sort, refine })
      ).flatMap((page) => page.profiles);
      const res = await exportCall(viewer, 'profiles', { query: '', sort, refine });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['content-disposition']).toMatch(
        /^attachment; filename="murmur-profiles-cafe-unicode-co-/,
      );
      const file = readExport(res.body);
      expect(file.comments[0]).toBe('Murmur export: profiles');
      expect(file.header).toEqual([
        'id',
        'platform',
        'handle',
        'display_name',
        'followers',
        'verified',
        'mentions',
        'engagement',
      ]);
      expect(file.rows).toEqual(
        listed.map((p) => [
          String(p.id),
          p.platform,
          neutral(p.handle),
          neutral(p.display_name),
          String(p.followers),
          String(p.verified),
          String(p.mentions),
          String(p.engagement),
        ]),
      );
      expect(file.rows.length).toBeGreaterThan(5);
    },
  );
});

describe('who may export, and errors before the first byte', () => {
  it.each(['posts', 'profiles'])('%s: members 200, outsiders 404, signed out 401', async (what) => {
    for (const person of [team.owner, team.manager, team.viewer]) {
      const res = await exportCall(person, what, { query: 'coffee', max_rows: 3 }, team.workspaceId);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    }
    const outsider = await exportCall(team.outsider, what, { query: 'coffee' }, team.workspaceId);
    expect(outsider.statusCode).toBe(404);
    expect(outsider.headers['content-type']).toMatch(/^application\/json/);
    const missing = await exportCall(team.viewer, what, { query: 'coffee' }, 'no-such-workspace');
    expect(missing.json()).toEqual(outsider.json());
    expect((await exportCall(null, what, { query: 'coffee' }, team.workspaceId)).statusCode).toBe(401);
  });

  it.each([
    ['a query that does not parse', { query: 'coffee AND (' }, 'invalid_query', /The query is not valid/],
    [
      'max_rows of 0',
      { query: '', max_rows: 0 },
      'invalid_request',
      /max_rows is a whole number from 1 to 100000/,
    ],
    ['max_rows past the cap', { query: '', max_rows: 100_001 }, 'invalid_request', /from 1 to 100000/],
    [
      'a bad refinement',
      { query: '', refine: [{ field: 'hour_of_week', values: [{ day: 0, hour: 1 }] }] },
      'invalid_request',
      /day is a whole number/,
    ],
    [
      'a date that is not a bucket start',
      { query: '', refine: [{ field: 'date', bucket: 'day', values: ['2026-11-03T05:00:00Z'] }] },
      'invalid_refine',
      /is not the start of a day/,
    ],
    ['an unknown sort', { query: '', sort: 'random' }, 'invalid_request', /./],
  ])('%s is a 400 in JSON', async (_name, body, error, message) => {
    const res = await exportCall(viewer, 'posts', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const json = res.json<{ error: string; message: string; fields?: Array<{ message: string }> }>();
    expect(json.error).toBe(error);
    expect([json.message, ...(json.fields ?? []).map((f) => f.message)].join(' | ')).toMatch(message);
  });

  it('is documented in the OpenAPI document as a CSV file', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    for (const path of ['/social/insights/export/posts', '/social/insights/export/profiles']) {
      const operation = doc.paths[path].post;
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(Object.keys(operation.responses['200'].content)).toEqual(['text/csv']);
      expect(Object.keys(operation.responses)).toEqual(
        expect.arrayContaining(['400', '401', '404', '429', '503']),
      );
      expect(operation.requestBody.content['application/json'].schema.properties).toHaveProperty('max_rows');
    }
  });
});

describe('over a real socket', () => {
  /** An app on the test database whose read-only transactions fail from the `failFrom`-th on, counting them. */
  async function listening(failFrom = Infinity) {
    const logs: string[] = [];
    let transactions = 0;
    const db = new Proxy(server.db, {
      get(target, property, receiver) {
        if (property !== 'transaction') return Reflect.get(target, property, receiver) as unknown;
        return (...args: Parameters<typeof target.transaction>) => {
          transactions += 1;
          if (transactions >= failFrom) {
            return Promise.reject(Object.assign(new Error('terminating connection'), { code: '57P01' }));
          }
          return target.transaction(...args);
        };
      },
    });
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString());
        done();
      },
    });
    const app = await buildApp({
      db,
      config: server.config,
      accessTokens: server.accessTokens,
      logger: { level: 'info', stream },
      analytics: server.analytics,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/social/insights/export/posts`;
    const request = (init: RequestInit = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${viewer.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workspace_id: workspaceId, query: '', filters: RANGE, sort: 'recency' }),
        ...init,
      });
    return { app, logs, request, transactions: () => transactions };
  }

  it('streams the file whole when nothing fails', async () => {
    const { app, request, transactions } = await listening();
    try {
      const res = await request();
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
      const file = readExport(await res.text());
      expect(file.rows.length).toBeGreaterThan(10_000);
      // One transaction per page of 5 000.
      expect(transactions()).toBe(Math.ceil(file.rows.length / 5_000));
    } finally {
      await app.close();
    }
  });

  it('breaks the download off when the database fails after the first page, and logs it as a 500', async () => {
    const { app, logs, request } = await listening(2);
    try {
      const res = await request();
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
      const failure = logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((l) => l.msg === 'request failed');
      expect(failure).toMatchObject({
        level: 50,
        errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
        route: '/social/insights/export/posts',
        failure: { sqlstate: '57P01' },
      });
      // Never the message (it may hold user input).
      expect(logs.join('')).not.toContain('terminating connection');
    } finally {
      await app.close();
    }
  });

  it('answers a failure before the first byte with the usual JSON error', async () => {
    // The failure is the database going away (57P01): a 503 the client may retry, as for any request.
    const { app, request } = await listening(1);
    try {
      const res = await request();
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: 'database_unavailable' });
    } finally {
      await app.close();
    }
  });

  it('answers a store that cannot be reached with its 503 before the first byte, never a 500', async () => {
    const { app, request } = await listening();
    const query = vi
      .spyOn(server.analytics!.store!, 'query')
      .mockRejectedValue(new AnalyticsStoreUnreachable('connection refused'));
    try {
      const res = await request();
      expect(res.status).toBe(503);
      expect(res.headers.get('content-disposition')).toBeNull();
      expect(await res.json()).toMatchObject({ error: 'figures_unavailable' });
    } finally {
      query.mockRestore();
      await app.close();
    }
  });

  it('stops paging when the client goes away', async () => {
    const { app, request, transactions } = await listening();
    try {
      const abort = new AbortController();
      const res = await request({ signal: abort.signal });
      const reader = res.body!.getReader();
      await reader.read();
      abort.abort();
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The first page, and at most the one being read when the client left.
      expect(transactions()).toBeLessThanOrEqual(2);
    } finally {
      await app.close();
    }
  });
});
