// The Compare dashboard end to end against the REAL server: Ana Owner compares two saved queries over the last 7 days;
// each query's mentions, previous period and share on the page equal what its own overview answers; the queries
// compared live in the address; a drill-down from the stacked mentions' table (the keyboard's way to a chart's points)
// opens filtered posts of that query and bucket, listing exactly its posts of that day. In tags mode, the tags Ferry
// and Tram (set by rules) are compared over every post, each column's figures as the API answers them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { OverviewResponse } from '@contract/insights-responses';
import type { CompareResponse } from '@contract/insights-compare';
import type { TagCategoriesResponse } from '@contract/tags';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import {
  collectCspViolations,
  cspViolations,
  launchBrowser,
  newTestPage,
  type TestPage,
} from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { asAna, startRealServer, type RealServer } from '@test/support/real-server';
import { signInThroughProvider } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);

let server: RealServer;
let browser: Browser;
const contexts: TestPage[] = [];
const ids: Record<'ferries' | 'trams', string> = { ferries: '', trams: '' };

const api = (method: 'GET' | 'POST', url: string, payload?: object) => asAna(server, method, url, payload);

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  const [authorId] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'e2e-commuter', handle: 'commuter', displayName: 'Commuter' },
  ]);
  const daysAgo = (days: number, hour = 10) =>
    new Date(
      Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() - days, hour),
    );
  // Ferries on 1, 2 and 3 days ago (3, 2, 1 posts); trams on 2 and 3 days ago; one post mentions both.
  const posts = [
    ...[1, 1, 1, 2, 2, 3].map((days, i) => ({ days, text: `The ferry is late again (${i})` })),
    ...[2, 3, 3].map((days, i) => ({ days, text: `Tram works on the high street (${i})` })),
    { days: 2, text: 'Took the ferry, then the tram' },
    // The previous period: a week and more ago.
    { days: 9, text: 'The ferry was fine last week' },
  ];
  await insertPosts(
    server.db,
    posts.map((post, i) => ({
      authorId: authorId!,
      platform: 'x' as const,
      externalId: `e2e-compare-${i}`,
      text: post.text,
      postedAt: daysAgo(post.days, 10 + (i % 5)),
    })),
  );
  for (const [key, query] of [
    ['ferries', 'ferry'],
    ['trams', 'tram'],
  ] as const) {
    const res = await api('POST', '/api/workspaces/demo/saved-queries', { name: `Compare ${key}`, query });
    ids[key] = res.json<{ id: string }>().id;
  }
});
afterAll(async () => {
  await Promise.allSettled(contexts.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

async function signIn(): Promise<Page> {
  const current = await newTestPage(browser, server.origin);
  contexts.push(current);
  await collectCspViolations(current.context);
  const { page } = current;
  await signInThroughProvider(page, /^Ana Owner/, (url) => url.pathname === '/workspace/demo/saved-queries');
  await waitForHeading(page, 'Saved queries');
  return page;
}

describe('Compare (real server)', () => {
  it("shows each query's figures as its own overview gives them, and drills down to a query's posts of a day", async () => {
    const page = await signIn();
    await page.goto(
      `${server.origin}/workspace/demo/insight/compare?compare=${ids.ferries},${ids.trams}&range=7d`,
    );
    await waitForHeading(page, 'Compare');
    const card = page
      .locator('section.chart-card')
      .filter({ hasText: 'Mentions against the previous period' });
    await card.getByRole('button', { name: 'Table' }).click();
    const rows = card.locator('tbody tr');
    await rows.first().waitFor();

    // The range the page asked: read back from its own request to the overview of each query.
    const [compareCall] = await Promise.all([
      page.waitForRequest((request) => request.url().endsWith('/social/insights/compare')),
      page.reload(),
    ]);
    const filters = (JSON.parse(compareCall.postData()!) as { filters: Record<string, unknown> }).filters;
    await card.getByRole('button', { name: 'Table' }).click();
    for (const [index, key] of (['ferries', 'trams'] as const).entries()) {
      const overview = (
        await api('POST', '/social/insights/overview', {
          workspace_id: 'demo',
          saved_query_id: ids[key],
          filters,
        })
      ).json<OverviewResponse>();
      const cells = await rows.nth(index).locator('th, td').allInnerTexts();
      expect(cells[0]).toBe(`Compare ${key}`);
      expect(Number(cells[1]!.replace(/,/g, ''))).toBe(overview.totals.mentions.value);
      expect(Number(cells[2]!.replace(/,/g, ''))).toBe(overview.totals.mentions.previous);
    }
    // ferries: 7 this week (one with the tram), trams: 4 (one with the ferry) → 7 / 11 and 4 / 11.
    expect(await rows.nth(0).locator('td').nth(3).innerText()).toMatch(/%$/);
    expect(await page.getByText('1 posts match two or more of the compared queries').count()).toBe(1);

    // The stacked mentions' table: the trams of 2 days ago, 2 posts (one tram, one ferry-and-tram).
    const stacked = page.locator('section.chart-card').filter({ hasText: 'Mentions over time, stacked' });
    await stacked.getByRole('button', { name: 'Table' }).click();
    const day = stacked.locator('tbody tr').filter({ has: page.locator('td', { hasText: /^2$/ }) });
    await day
      .first()
      .getByRole('button', { name: /: Compare trams$/ })
      .click();
    await waitForHeading(page, 'Filtered posts');
    const url = new URL(page.url());
    expect(url.searchParams.get('query')).toBe(ids.trams);
    expect(url.searchParams.get('refine')).toContain('date');
    await page.locator('.post-text').first().waitFor();
    const texts = await page.locator('.post-text').allInnerTexts();
    expect(texts.every((text) => /tram/i.test(text))).toBe(true);
    expect(texts).toHaveLength(2);
    expect(await cspViolations(page)).toEqual([]);
  });

  it('compares two tags set by rules, each column as the API answers it', async () => {
    const created = async (url: string, payload: object) => {
      const res = await api('POST', url, payload);
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    const category = await created('/api/workspaces/demo/tag-categories', { name: 'Transport' });
    const tagIds: string[] = [];
    for (const [name, query] of [
      ['Ferry', 'ferry'],
      ['Tram', 'tram'],
    ]) {
      const tag = await created(`/api/workspaces/demo/tag-categories/${category}/tags`, { name });
      await created(`/api/workspaces/demo/tags/${tag}/rules`, { query });
      tagIds.push(tag);
    }
    await expect
      .poll(
        async () =>
          (await api('GET', '/api/workspaces/demo/tag-categories'))
            .json<TagCategoriesResponse>()
            .categories.flatMap((c) => c.tags.flatMap((t) => t.rules))
            .every((rule) => rule.caught_up),
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);

    const page = await signIn();
    const [compareCall] = await Promise.all([
      page.waitForRequest((request) => request.url().endsWith('/social/insights/compare')),
      page.goto(
        `${server.origin}/workspace/demo/insight/compare?mode=tags&tags=${tagIds.join(',')}&range=7d`,
      ),
    ]);
    await waitForHeading(page, 'Compare');
    const sent = JSON.parse(compareCall.postData()!) as { tag_ids: string[]; filters: object };
    expect(sent.tag_ids).toEqual(tagIds);
    const answer = (
      await api('POST', '/social/insights/compare', {
        workspace_id: 'demo',
        tag_ids: tagIds,
        filters: sent.filters,
      })
    ).json<CompareResponse>();
    expect(answer.queries.map((column) => column.name)).toEqual(['Transport › Ferry', 'Transport › Tram']);
    // Ferries: 7 this week (one with the tram); trams: 4 (one with the ferry). Not vacuous.
    expect(answer.queries.map((column) => column.mentions.value)).toEqual([7, 4]);
    const card = page
      .locator('section.chart-card')
      .filter({ hasText: 'Mentions against the previous period' });
    await card.getByRole('button', { name: 'Table' }).click();
    const rows = card.locator('tbody tr');
    await rows.nth(1).waitFor();
    for (const [index, column] of answer.queries.entries()) {
      const cells = await rows.nth(index).locator('th, td').allInnerTexts();
      expect(cells[0]).toBe(column.name);
      expect(Number(cells[1]!.replace(/,/g, ''))).toBe(column.mentions.value);
      expect(Number(cells[2]!.replace(/,/g, ''))).toBe(column.mentions.previous);
    }
    expect(answer.overlap.posts).toBe(1);
    expect(await page.getByText('1 posts carry two or more of the compared tags').count()).toBe(1);
    expect(await cspViolations(page)).toEqual([]);
  });
});
