// Categories of tags end to end against the REAL server, over the demo corpus with a dozen posts of the last days
// about an outage and five quiet ones. Ben (a manager of the demo workspace) creates the category "Topic" with the
// tags "Outage" (its rule `outage`) and "Calm" (no rule) in Settings › Categories. He opens the overview: the By
// category card shows each tag's posts exactly as POST /social/insights/categories answers the page's own request
// (Outage's at least the dozen), "Untagged" apart, and axe-core finds no violation. Outage's button, reached from the
// keyboard, opens filtered posts with the chip "Tag: only Topic › Outage"; there, "Tag several posts" removes the tag
// from all of the page's posts in one call, and the server and the list count them untagged; then every post of the
// list of "outage" (beyond its page) is tagged at once, after a confirmation naming their count, and the server counts
// each tagged, their cards showing the tag. Then he tags one quiet post Calm by hand from its card: the card shows
// it, and the server says it is set by hand. Last, he deletes the category after a confirmation: the page and the API
// list none, and the post carries no tag. Set MURMUR_KEEP_SCREENS to a directory to keep screenshots of the card and
// of the deletion.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { CategoryBreakdownResponse } from '@contract/insights-categories';
import type { PostTagsResponse, TagCategoriesResponse, TagCountsResponse } from '@contract/tags';
import { demoUserIds } from '@server/seed';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { launchBrowser, newTestPage, type TestPage } from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { axeViolations } from '@test/support/axe';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { signInThroughProvider } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781) + 12;
const HOUR = 3_600_000;
const OUTAGE_POSTS = 12;
const QUIET_POSTS = 5;

let server: RealServer;
let browser: Browser;
const pages: TestPage[] = [];
let token = '';

const api = async <T>(method: 'GET' | 'POST', url: string, payload?: object, status = 200) => {
  const response = await server.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
  });
  expect(response.statusCode, response.body).toBe(status);
  return response.json<T>();
};

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  token = await server.tokenFor((await demoUserIds(server.db)).get('ben@murmur.local')!);
  const [author] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'cat-1', handle: 'nestwatch', displayName: 'Nest Watch', followers: 900 },
  ]);
  const now = Math.floor(Date.now() / HOUR) * HOUR;
  await insertPosts(server.db, [
    ...Array.from({ length: OUTAGE_POSTS }, (_, i) => ({
      platform: 'x' as const,
      externalId: `cat-outage-${i}`,
      authorId: author!,
      text: `CloudNest outage again, login failing ${i}`,
      language: 'en',
      postedAt: new Date(now - (i + 2) * 5 * HOUR),
      likes: i,
    })),
    // Posts the rule leaves untagged.
    ...Array.from({ length: QUIET_POSTS }, (_, i) => ({
      platform: 'x' as const,
      externalId: `cat-quiet-${i}`,
      authorId: author!,
      text: `A calm pour-over and a good book ${i}`,
      language: 'en',
      postedAt: new Date(now - (i + 3) * 7 * HOUR),
    })),
  ]);
});
afterAll(async () => {
  await Promise.allSettled(pages.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

describe('By category (real server)', () => {
  it("shows a category's tags as the API counts them, opens a tag's posts and untags them at once", async () => {
    // Ben, a manager, makes the category, its tags and a rule in Settings › Categories.
    const current = await newTestPage(browser, server.origin);
    pages.push(current);
    const { page } = current;
    await signInThroughProvider(page, /Ben/, (url) => url.pathname.startsWith('/workspace/demo'));
    await page.goto('/workspace/demo/settings/categories');
    await waitForHeading(page, 'Categories');
    await page.getByLabel('Name', { exact: true }).fill('Topic');
    await page.getByRole('button', { name: 'Create category' }).click();
    for (const name of ['Outage', 'Calm']) {
      await page.getByLabel('New tag in Topic').fill(name);
      await page.getByRole('button', { name: 'Add tag to Topic' }).click();
      await page.getByLabel(`New rule for ${name}`).waitFor();
    }
    await page.getByLabel('New rule for Outage').fill('outage');
    await page.getByRole('button', { name: 'Add rule to Outage' }).click();
    await page.getByRole('list', { name: 'Rules of Outage' }).getByText('outage').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const [topic] = (await api<TagCategoriesResponse>('GET', '/api/workspaces/demo/tag-categories'))
      .categories;
    expect(topic).toMatchObject({
      name: 'Topic',
      tags: [{ name: 'Calm' }, { name: 'Outage', rules: [{ query: 'outage' }] }],
    });
    const categoryId = topic!.id;
    const tagId = topic!.tags.find((tag) => tag.name === 'Outage')!.id;
    // The rule tags the past posts in the background: until it says it has looked at every one.
    await expect
      .poll(
        async () =>
          (await api<TagCategoriesResponse>('GET', '/api/workspaces/demo/tag-categories')).categories
            .flatMap((c) => c.tags)
            .flatMap((t) => t.rules)
            .every((r) => r.caught_up),
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);

    // The store has the rule's tags of the last 7 days: the API counts at least the dozen outage posts.
    const to = new Date().toISOString();
    const body = {
      workspace_id: 'demo',
      query: '',
      filters: { from: new Date(Date.now() - 7 * 24 * HOUR).toISOString(), to },
      category_id: categoryId,
    };
    await expect
      .poll(
        async () =>
          (await api<CategoryBreakdownResponse>('POST', '/social/insights/categories', body)).tags[0]
            ?.posts ?? 0,
        { timeout: 30_000, interval: 500 },
      )
      .toBeGreaterThanOrEqual(OUTAGE_POSTS);

    // Settings › Categories counts the tag's posts as the store counts them (all of them, not the last 7 days).
    const settled = async () => {
      const counts = await api<TagCountsResponse>('POST', '/social/insights/tag-counts', {
        workspace_id: 'demo',
      });
      return counts.data_as_of ? null : counts.tags.find((t) => t.tag_id === tagId)!.posts;
    };
    await expect.poll(settled, { timeout: 30_000, interval: 500 }).not.toBeNull();
    const outagePosts = (await settled())!;
    expect(outagePosts).toBeGreaterThanOrEqual(OUTAGE_POSTS);
    await expect
      .poll(() => page.getByRole('list', { name: 'Tags of Topic' }).getByRole('heading').allInnerTexts(), {
        timeout: 20_000,
      })
      .toEqual([`Calm · 0 posts`, `Outage · ${outagePosts.toLocaleString('en')} posts`]);

    const asked = page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/social/insights/categories',
      { timeout: 30_000 },
    );
    await page.goto('/workspace/demo/insight/overview?range=7d');
    await waitForHeading(page, 'Overview');
    // The page's own request and the server's answer to it: what the card must show.
    const response = await asked;
    expect(response.status()).toBe(200);
    expect(response.request().postDataJSON()).toMatchObject({
      workspace_id: 'demo',
      category_id: categoryId,
    });
    const answer = (await response.json()) as CategoryBreakdownResponse;
    expect(answer.category).toEqual({ id: categoryId, name: 'Topic' });
    const outage = answer.tags.find((t) => t.id === tagId)!;
    expect(outage.posts).toBeGreaterThanOrEqual(OUTAGE_POSTS);

    const card = page.getByRole('region', { name: 'By category' });
    await expect.poll(() => card.getByRole('combobox', { name: 'Category' }).inputValue()).toBe(categoryId);
    const bars = card.getByRole('list', { name: 'Posts per tag of Topic' });
    await bars.waitFor({ timeout: 30_000 });
    // The card is at the page's end: drawn (content-visibility) once scrolled to.
    await card.scrollIntoViewIfNeeded();
    await expect
      .poll(() => bars.getByRole('listitem').allInnerTexts())
      .toEqual([
        expect.stringMatching(new RegExp(`^Outage\\s+${outage.posts.toLocaleString('en-US')} posts \\(`)),
        expect.stringMatching(/^Calm\s+0 posts/),
      ]);
    await expect
      .poll(() => card.locator('.category-untagged').innerText())
      .toMatch(new RegExp(`^Untagged\\s+${answer.untagged.toLocaleString('en-US')} posts`));
    expect(answer.untagged).toBeGreaterThanOrEqual(QUIET_POSTS);
    expect(answer.tagged + answer.untagged).toBe(answer.posts);
    expect(await axeViolations(page)).toEqual([]);
    if (process.env.MURMUR_KEEP_SCREENS) {
      await card.screenshot({ path: path.join(process.env.MURMUR_KEEP_SCREENS, 'by-category.png') });
    }

    // Outage's drill-down, from the keyboard: filtered posts refined to the tag, its chip named by the tag's name.
    await card.getByRole('button', { name: 'Posts tagged Topic › Outage' }).focus();
    await page.keyboard.press('Enter');
    await waitForHeading(page, 'Filtered posts');
    expect(new URL(page.url()).searchParams.get('refine')).toBe(`tag:${tagId}`);
    const chips = page.getByRole('group', { name: 'Drill-down refinements' });
    await expect.poll(() => chips.getByText('Tag: only Topic › Outage').count(), { timeout: 20_000 }).toBe(1);
    expect(await chips.innerText()).not.toContain(tagId);
    await expect
      .poll(() => page.locator('main').innerText(), { timeout: 20_000 })
      .toContain(`of ${outage.posts.toLocaleString('en-US')} posts`);

    // Many posts at once: every post of the page (the tag's), the tag removed by hand in one call.
    const shown = await page.locator('.post-card').count();
    expect(shown).toBeGreaterThan(0);
    const before = (await api<CategoryBreakdownResponse>('POST', '/social/insights/categories', body))
      .tags[0]!.posts;
    await page.getByRole('button', { name: 'Tag several posts' }).click();
    const panel = page.getByRole('group', { name: 'Tag several posts' });
    await panel.getByRole('checkbox', { name: `All ${shown} posts of this page` }).check();
    await panel.getByRole('combobox', { name: 'Tag' }).selectOption({ label: 'Topic › Outage' });
    expect(await axeViolations(page)).toEqual([]);
    await panel.getByRole('button', { name: `Remove the tag from ${shown} posts` }).click();
    await expect
      .poll(() => page.getByText(`Tag Topic › Outage removed: ${shown} posts changed`).count(), {
        timeout: 20_000,
      })
      .toBe(1);
    // The server counts them untagged at once, and the list (refined to the tag) is read again without them.
    const after = await api<CategoryBreakdownResponse>('POST', '/social/insights/categories', body);
    expect(after.tags[0]!.posts).toBe(before - shown);
    await expect
      .poll(() => page.locator('.post-card').count(), { timeout: 20_000 })
      .toBe(Math.min(shown, outage.posts - shown));

    // Every post of a list at once, beyond its page: the outage posts of the last 7 days (those just untagged among
    // them) tagged by hand after a confirmation naming their count and the tag; the server then counts each tagged.
    await page.goto('/workspace/demo/insight/filtered-posts?q=outage&range=7d');
    await waitForHeading(page, 'Filtered posts');
    await page.getByRole('button', { name: 'Tag several posts' }).click();
    const listPanel = page.getByRole('group', { name: 'Tag several posts' });
    await listPanel.getByRole('combobox', { name: 'Tag' }).selectOption({ label: 'Topic › Outage' });
    const tagAll = listPanel.getByRole('button', { name: /^Tag all [\d,]+ posts? of the list$/ });
    const all = Number(/Tag all ([\d,]+) post/.exec((await tagAll.innerText()) ?? '')![1]!.replace(/,/g, ''));
    expect(all).toBeGreaterThanOrEqual(OUTAGE_POSTS);
    const count = `${all.toLocaleString('en-US')} posts`;
    await tagAll.click();
    const dialog = page.getByRole('alertdialog', { name: `Tag all ${count} with Topic › Outage?` });
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: `Tag ${count}` }).click();
    await expect
      .poll(() => page.getByText(new RegExp(`^Tagged Topic › Outage on all ${count}: `)).count(), {
        timeout: 30_000,
      })
      .toBe(1);
    const tagged = await api<CategoryBreakdownResponse>('POST', '/social/insights/categories', {
      ...body,
      query: 'outage',
      filters: { from: new Date(Date.now() - 7 * 24 * HOUR).toISOString(), to: new Date().toISOString() },
    });
    expect(tagged.tags[0]!.posts).toBe(all);
    expect(tagged.untagged).toBe(0);

    // One post by hand, from its card: a quiet post gets Calm (a tag without a rule), and the card shows it at once.
    // The outage posts' cards already show the rule's tag.
    expect(
      await page.locator('.post-card').first().getByRole('list', { name: 'Tags' }).innerText(),
    ).toContain('Topic › Outage');
    await page.goto('/workspace/demo/insight/filtered-posts?q=pour&range=7d');
    await waitForHeading(page, 'Filtered posts');
    const quiet = page.locator('.post-card', { hasText: 'A calm pour-over and a good book' }).first();
    await quiet.getByRole('button', { name: 'Tags' }).click();
    const choices = quiet.getByRole('group', { name: 'Tags of the post by @nestwatch' });
    await choices.getByRole('checkbox', { name: 'Calm' }).check();
    // Still on the list: a click in the Tags control does not open the post.
    expect(new URL(page.url()).pathname).toBe('/workspace/demo/insight/filtered-posts');
    await expect
      .poll(() => quiet.getByRole('list', { name: 'Tags' }).textContent(), { timeout: 20_000 })
      .toBe('Topic › Calm (set by hand)');
    expect(await axeViolations(page)).toEqual([]);
    const postId = Number(
      /\/post\/(\d+)/.exec(
        (await quiet.getByRole('link', { name: /^Post details/ }).getAttribute('href'))!,
      )![1],
    );
    const carried = await api<PostTagsResponse>('GET', `/api/workspaces/demo/posts/${postId}/tags`);
    expect(carried.tags).toEqual([
      expect.objectContaining({ name: 'Calm', category: 'Topic', set_by: 'manual' }),
    ]);

    // Ben deletes the category: its tags, its rule and every post's tags of it go (the rules' rows, then the corpus
    // lock, then the rows: server/tags/hold.ts).
    await page.goto('/workspace/demo/settings/categories');
    await waitForHeading(page, 'Categories');
    await page.getByRole('button', { name: 'Delete Topic' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete the category Topic?' });
    if (process.env.MURMUR_KEEP_SCREENS)
      await page.screenshot({ path: path.join(process.env.MURMUR_KEEP_SCREENS, 'delete-category.png') });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('list', { name: 'Tags of Topic' }).waitFor({ state: 'detached' });
    if (process.env.MURMUR_KEEP_SCREENS)
      await page.screenshot({ path: path.join(process.env.MURMUR_KEEP_SCREENS, 'category-deleted.png') });
    expect(
      (await api<TagCategoriesResponse>('GET', '/api/workspaces/demo/tag-categories')).categories,
    ).toEqual([]);
    const left = await api<PostTagsResponse>('GET', `/api/workspaces/demo/posts/${postId}/tags`);
    expect(left.tags).toEqual([]);
  });
});
