// CSV exports of the drill-down lists (POST /social/insights/export/{posts,profiles}). From the analytics store: the
// ids of the rows exported, their order and the list's total in one statement at one version, then the rows from
// PostgreSQL by id, a page at a time in that order. Each page is written out as it comes, so an export of 100 000
// rows holds two pages at most (the one written, and the next, read meanwhile); its rows, in their
// order, are those of the JSON pages for the same body (but, by recency from the store, for posts of one millisecond:
// server/analytics/figures/export.ts). The file opens with comment lines saying what it holds; the exports' one
// CSV writer (contract/csv.ts) quotes fields per RFC 4180 and neutralises text a spreadsheet would read as a
// formula (README.md beside this file, "Exports").
import { csvComments, csvRecords, type CsvValue } from '@contract/csv';
import type { PostSort, ProfileSort } from '@contract/insights';
import { tagLabel } from '@contract/tags';
import type { InsightPerson, InsightPost } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { storeExportPosts } from '@server/analytics/figures/export';
import { storeProfilePage } from '@server/analytics/figures/people';
import type { AnalyticsService } from '@server/analytics/service';
import { profilesCounted } from './people';
import { postsCounted } from './posts';
import type { InsightScope } from './request';
import { peopleFor, postsByIds, toPost, type PersonAggregate } from './rows';
import { fromStore } from './store-source';
import { readOnly, type Tx } from './transactions';
import { formatWallClock, wallClock, wallClockFormatter } from '@contract/zoned-time';

/**
 * Rows looked up by id per page, whatever the sort. A page of 5 000 posts is a chunk of about 1.3 MB; the server holds
 * two at most (one written, the next read meanwhile).
 */
const PAGE_ROWS = 5_000;
/**
 * Rows per chunk written (about 50 kB of text): the socket gets a page's first rows at once, and the strings stay
 * small (a page's 1.3 MB as one string would be a large object of V8's old generation, freed only by a full
 * collection).
 */
const CHUNK_ROWS = 200;

interface Column<T> {
  name: string;
  value: (row: T) => CsvValue;
}

function postColumns(timeZone: string, sort: PostSort): Array<Column<InsightPost>> {
  const local = wallClockFormatter(timeZone);
  const columns: Array<Column<InsightPost>> = [
    { name: 'id', value: (p) => p.id },
    { name: 'platform', value: (p) => p.platform },
    { name: 'posted_at', value: (p) => p.posted_at },
    { name: 'posted_at_local', value: (p) => local(new Date(p.posted_at)) },
    { name: 'author_handle', value: (p) => p.author.handle },
    { name: 'author_name', value: (p) => p.author.display_name },
    { name: 'author_followers', value: (p) => p.author.followers },
    { name: 'text', value: (p) => p.text },
    { name: 'url', value: (p) => p.url },
    { name: 'language', value: (p) => p.language },
    { name: 'kind', value: (p) => p.kind },
    { name: 'media', value: (p) => p.media },
    { name: 'likes', value: (p) => p.likes },
    { name: 'comments', value: (p) => p.comments },
    { name: 'shares', value: (p) => p.shares },
    { name: 'views', value: (p) => p.views },
    { name: 'engagement', value: (p) => p.engagement },
    { name: 'sentiment_label', value: (p) => p.sentiment_label },
    { name: 'sentiment', value: (p) => p.sentiment },
    // "Topic › Outage; Topic › Price", by category then tag.
    { name: 'tags', value: (p) => (p.tags ?? []).map((tag) => tagLabel(tag.category, tag.name)).join('; ') },
  ];
  if (sort === 'overperformance') columns.push({ name: 'overperformance', value: (p) => p.overperformance });
  return columns;
}

const PROFILE_COLUMNS: Array<Column<InsightPerson>> = [
  { name: 'id', value: (p) => p.id },
  { name: 'platform', value: (p) => p.platform },
  { name: 'handle', value: (p) => p.handle },
  { name: 'display_name', value: (p) => p.display_name },
  { name: 'followers', value: (p) => p.followers },
  { name: 'verified', value: (p) => p.verified },
  { name: 'mentions', value: (p) => p.mentions },
  { name: 'engagement', value: (p) => p.engagement },
];

/** One page of a list as the export reads it: the offset of the next page, or null. */
interface Page<T> {
  counted: string;
  total: number;
  rows: T[];
  next: string | null;
}

type Fetch<T> = (cursor: string | undefined, limit: number) => Promise<Page<T>>;

export interface CsvExport {
  /** murmur-<what>-<workspace>-<yyyy-mm-dd>.csv, the date of the workspace's zone. */
  filename: string;
  /** The file's text, a chunk per page. The first page has been read already: its errors are the route's. */
  chunks: AsyncGenerator<string>;
}

/** A file name's part from the workspace's name: ASCII letters and digits (accents dropped) joined by hyphens. */
function slug(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ');
  return words.join('-').slice(0, 40).replace(/-+$/, '') || 'workspace';
}

function preamble(what: string, context: InsightScope, first: Page<unknown>, maxRows: number): string {
  const { scope, timeZone, normalized, savedQueryName } = context;
  const local = (instant: Date) => formatWallClock(wallClock(instant, timeZone)).replace('T', ' ');
  const query =
    normalized === null
      ? 'none (every post)'
      : `${normalized}${savedQueryName === null ? '' : ` (the saved query "${savedQueryName}")`}`;
  return csvComments([
    `Murmur export: ${what}`,
    `Workspace time zone: ${timeZone}`,
    `Range: ${local(scope.from)} to ${local(scope.to)} ${timeZone} (${scope.from.toISOString()} to ` +
      `${scope.to.toISOString()} UTC); from inclusive, to exclusive`,
    ...(context.historyClip
      ? [
          `History: the plan keeps ${context.historyClip.history_days} days; the range asked for started ` +
            `${context.historyClip.requested_from} and was clipped to the plan's history`,
        ]
      : []),
    `Query: ${query}`,
    `Counted: ${first.counted}`,
    `Rows: the first ${maxRows} at most, of ${first.total} ${what} when the export started`,
  ]);
}

/**
 * Given the first page (read before: a failure there, the store's 503 included, is the route's error, before any byte
 * is sent), gives the file page by page: each page is read only when the previous one has been taken (the stream's
 * backpressure), and none once `signal` is aborted (the client went away).
 */
async function csvExport<T>(
  what: 'posts' | 'profiles',
  context: InsightScope,
  workspace: { name: string },
  columns: Array<Column<T>>,
  maxRows: number,
  signal: AbortSignal,
  fetch: Fetch<T>,
): Promise<CsvExport> {
  const first = await fetch(undefined, Math.min(PAGE_ROWS, maxRows));
  const head = preamble(what, context, first, maxRows) + csvRecords([columns.map((column) => column.name)]);
  const date = formatWallClock(wallClock(new Date(), context.timeZone)).slice(0, 10);
  // The first page is the generator's argument, so that it is let go once written.
  async function* chunks(page: Page<T>): AsyncGenerator<string> {
    let text = head;
    let written = 0;
    for (;;) {
      const rows = page.rows.slice(0, maxRows - written);
      written += rows.length;
      // The next page is read while this one is formatted and sent: the database and this process work at once.
      const next =
        page.next !== null && written < maxRows && !signal.aborted
          ? fetch(page.next, Math.min(PAGE_ROWS, maxRows - written))
          : null;
      // Its failure is thrown where it is awaited below; this only keeps it from being unhandled if the client
      // leaves first.
      next?.catch(() => {});
      for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
        text += csvRecords(
          rows.slice(start, start + CHUNK_ROWS).map((row) => columns.map((column) => column.value(row))),
        );
        yield text;
        text = '';
      }
      if (text) yield text;
      text = '';
      if (next === null || signal.aborted) return;
      page = await next;
    }
  }
  return { filename: `murmur-${what}-${slug(workspace.name)}-${date}.csv`, chunks: chunks(first) };
}

/** The first page of named rows (as csvExport asks for it from namedPages), looked up. */
async function firstPage<N, T>(tx: Tx, rows: N[], lookUp: (tx: Tx, rows: N[]) => Promise<T[]>) {
  const named = rows.slice(0, PAGE_ROWS);
  return { of: named.length, rows: await lookUp(tx, named) };
}

/**
 * Pages of a list whose rows the store has named at one version (`named`, in order), looked up in PostgreSQL by id a
 * page at a time, the first in the snapshot the store's version was checked in (`first`: of its first `of` rows),
 * each later one in a snapshot of its own. The inner cursor is the offset of the page in `named`. A post or profile deleted since the
 * store named it is left out.
 */
function namedPages<N, T>(
  named: { total: number; rows: N[]; first: { of: number; rows: T[] } },
  counted: string,
  lookUp: (tx: Tx, rows: N[]) => Promise<T[]>,
  db: Db,
  timeZone: string,
): Fetch<T> {
  return async (cursor, limit) => {
    const offset = cursor === undefined ? 0 : Number(cursor);
    const end = Math.min(offset + limit, named.rows.length);
    const rows =
      offset === 0 && end === named.first.of
        ? named.first.rows
        : await readOnly(db, (tx) => lookUp(tx, named.rows.slice(offset, end)), { timeZone });
    return { counted, total: named.total, rows, next: end < named.rows.length ? String(end) : null };
  };
}

/**
 * The filtered posts as CSV (the filtered-posts list's rows and order). From the analytics store: the ids of every post
 * exported (up to max_rows), their order and the list's total in one statement at one version
 * (server/analytics/figures/export.ts), then the posts from PostgreSQL by id, a page at a time in that order: the
 * store keeps no snapshot of an older version, so its pages could not be read one after another.
 */
export async function exportPosts(
  db: Db,
  context: InsightScope,
  options: { sort: PostSort; max_rows: number },
  workspace: { id: string; name: string },
  signal: AbortSignal,
  service?: AnalyticsService,
): Promise<CsvExport> {
  const { sort } = options;
  const lookUp = async (tx: Tx, rows: Array<{ id: number; score: number | null }>) => {
    const ids = rows.map((row) => row.id);
    const posts = await postsByIds(tx, ids, { scope: context.scope, tagsOf: workspace.id });
    return rows.flatMap((row) => {
      const post = posts.get(row.id);
      return post ? [toPost(post, context.corrections, row.score, false)] : [];
    });
  };
  const named = await fromStore(
    db,
    context,
    service,
    (store, scope) => storeExportPosts(store, scope, sort, options.max_rows),
    async (tx, { total, posts }) => ({
      total,
      rows: posts,
      first: await firstPage(tx, posts, lookUp),
    }),
  );
  return csvExport(
    'posts',
    context,
    workspace,
    postColumns(context.timeZone, sort),
    options.max_rows,
    signal,
    namedPages(named, postsCounted(context, sort), lookUp, db, context.timeZone),
  );
}

/**
 * The filtered profiles as CSV (the filtered-profiles list's rows and order). From the analytics store: every author
 * exported (up to max_rows) with their figures, in order, and the list's total in one statement at one version
 * (storeProfilePage with the export's size), then the profiles from PostgreSQL by id, a page at a time.
 */
export async function exportProfiles(
  db: Db,
  context: InsightScope,
  options: { sort: ProfileSort; max_rows: number },
  workspace: { name: string },
  signal: AbortSignal,
  service?: AnalyticsService,
): Promise<CsvExport> {
  const { sort } = options;
  const named = await fromStore(
    db,
    context,
    service,
    (store, scope) => storeProfilePage(store, scope, sort, options.max_rows, null),
    async (tx, { total, page }) => {
      const rows: PersonAggregate[] = page.slice(0, options.max_rows);
      return { total, rows, first: await firstPage(tx, rows, peopleFor) };
    },
  );
  return csvExport(
    'profiles',
    context,
    workspace,
    PROFILE_COLUMNS,
    options.max_rows,
    signal,
    namedPages(named, profilesCounted(context, sort), peopleFor, db, context.timeZone),
  );
}
