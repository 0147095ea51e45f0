// A post's page and a profile's page end to end against the REAL server: Ana searches in discover, clicks a post and
// sees the text, metrics, author and matched terms the API returns for it, goes back to her search, then opens a top
// profile and sees its figures and posts; the addresses alone reproduce both pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { demoUserIds } from '@server/seed';
import type { PostDetailResponse, ProfileDetailResponse } from '@contract/social-detail';
import { launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { axeViolations } from '@test/support/axe';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { signInThroughProvider } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);
const HOUR = 3_600_000;

let server: RealServer;
let browser: Browser;
const pages: TestPage[] = [];
let token = '';
let authorId = 0;

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  token = await server.tokenFor((await demoUserIds(server.db)).get('ana@murmur.local')!);
  const [author] = (
    await insertProfiles(server.db, [
      {
        platform: 'x',
        externalId: 'e2e-cortado',
        handle: 'cortado_club',
        displayName: 'Cora Cortado',
        followers: 4200,
        bio: 'Small coffees, big opinions.',
      },
    ])
  ).map((id) => ({ id }));
  authorId = author!.id;
  const texts = [
    'A cortado in the sun #coffee',
    'Second cortado of the day, no regrets',
    'Cortado versus flat white: a thread',
  ];
  await insertPosts(
    server.db,
    texts.map((text, i) => ({
      platform: 'x' as const,
      externalId: `e2e-cortado-${i}`,
      authorId,
      text,
      language: 'en',
      postedAt: new Date(Date.now() - (i + 1) * HOUR),
      likes: 10 + i,
      comments: i,
      shares: 1,
      hashtags: text.includes('#coffee') ? ['coffee'] : [],
    })),
  );
});
afterAll(async () => {
  await Promise.allSettled(pages.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

const api = <T>(url: string, payload: object) =>
  server.app
    .inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload })
    .then((res) => {
      expect(res.statusCode, res.body).toBe(200);
      return res.json<T>();
    });

async function signIn(page: Page) {
  await signInThroughProvider(page, /Ana/, (url) => url.pathname.startsWith('/workspace/demo'));
}

describe('Post and profile pages (real server)', () => {
  const story = { postUrl: '', profileUrl: '' };
  let page: Page;

  it('clicking a post in discover opens its page with what the API returns for it', async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    page = current.page;
    await signIn(page);
    await page.goto('/workspace/demo/discover?q=cortado');
    await waitForHeading(page, 'Discover');
    const firstCard = page.locator('.post-card').first();
    await firstCard.waitFor({ timeout: 15_000 });
    await firstCard.locator('.post-text').click();
    await page.waitForURL((url) => url.pathname.startsWith('/workspace/demo/insight/post/'));
    await waitForHeading(page, 'Post');
    const url = new URL(page.url());
    expect(url.searchParams.get('q')).toBe('cortado');
    expect(url.searchParams.get('back')).toBe('discover');
    const postId = Number(url.pathname.split('/').at(-1));

    const detail = await api<PostDetailResponse>('/social/posts/detail', {
      workspace_id: 'demo',
      post_id: postId,
      query: 'cortado',
    });
    // The newest post: the first card of a search by recency.
    expect(detail.post.text).toBe('A cortado in the sun #coffee');
    const card = page.locator('.post-detail');
    await expect.poll(() => card.locator('.post-text').innerText()).toBe(detail.post.text);
    await expect.poll(() => card.locator('mark').first().innerText()).toMatch(/^cortado$/i);
    await expect
      .poll(() => card.getByRole('link', { name: /Profile of Cora Cortado/ }).innerText())
      .toBe(detail.post.author.display_name);
    const metrics = page.getByRole('region', { name: 'Metrics' });
    await expect.poll(() => metrics.innerText()).toContain(`Engagement\n${detail.post.engagement}`);
    await expect.poll(() => metrics.innerText()).toContain(`Likes\n${detail.post.likes}`);
    await expect.poll(() => metrics.innerText()).toContain('#coffee');
    const terms = page.getByRole('list', { name: "The query's terms" });
    await expect.poll(() => terms.innerText()).toContain('cortado — matched');
    await expect.poll(() => page.getByRole('region', { name: 'Thread' }).innerText()).toContain('not known');
    story.postUrl = page.url();

    // The back link returns to the search.
    await page.getByRole('link', { name: 'Back to discover' }).click();
    await page.waitForURL((next) => next.pathname === '/workspace/demo/discover');
    expect(new URL(page.url()).searchParams.get('q')).toBe('cortado');
  });

  it('a top profile in discover opens its page: figures per day and its posts', async () => {
    await page.getByRole('link', { name: 'Profile of Cora Cortado (@cortado_club)' }).first().click();
    await page.waitForURL((url) => url.pathname === `/workspace/demo/insight/profile/${authorId}`);
    await waitForHeading(page, 'Cora Cortado (@cortado_club)');
    const now = Date.now();
    const detail = await api<ProfileDetailResponse>('/social/profiles/detail', {
      workspace_id: 'demo',
      query: 'cortado',
      profile_id: authorId,
      filters: { from: new Date(now - 30 * 24 * HOUR).toISOString(), to: new Date(now).toISOString() },
    });
    expect(detail.totals.posts).toBe(3);
    const tiles = page.getByRole('list', { name: 'In this view' });
    await expect.poll(() => tiles.innerText()).toContain(`Posts\n${detail.totals.posts}`);
    await expect.poll(() => page.getByText('Small coffees, big opinions.').count()).toBe(1);
    // Its posts, newest first, each with the query's term marked.
    const posts = page.getByRole('region', { name: 'Posts' });
    await expect
      .poll(() => posts.locator('.post-card .post-text').allInnerTexts())
      .toEqual([
        'A cortado in the sun #coffee',
        'Second cortado of the day, no regrets',
        'Cortado versus flat white: a thread',
      ]);
    // The chart's table, the keyboard's view of the same figures.
    await page.getByRole('button', { name: 'Table', exact: true }).click();
    const table = page.getByRole('table', { name: 'Posts and engagement per day' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(detail.days.length);
    await expect.poll(() => page.getByRole('link', { name: 'Back to discover' }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    story.profileUrl = page.url();
  });

  it('the addresses alone reproduce both pages', async () => {
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    await signIn(current.page);
    await current.page.goto(story.postUrl);
    await waitForHeading(current.page, 'Post');
    await expect
      .poll(() => current.page.locator('.post-detail .post-text').innerText())
      .toBe('A cortado in the sun #coffee');
    await current.page.goto(story.profileUrl);
    await waitForHeading(current.page, 'Cora Cortado (@cortado_club)');
  });

  it('an address that names no post says so', async () => {
    await page.goto('/workspace/demo/insight/post/999999999?q=cortado');
    await page.getByRole('heading', { name: 'There is no such post' }).waitFor();
    await page.goto('/workspace/demo/insight/profile/abc');
    await page.getByRole('heading', { name: 'There is no such profile' }).waitFor();
  });
});
