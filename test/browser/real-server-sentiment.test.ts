// Correcting sentiment end to end against the REAL server: Ana Owner corrects a post's sentiment from its card on the
// posts dashboard (the card first says how sure the model is and, behind "Why?", the words that pushed it); the card
// says it was corrected by the team, who and when, without the model's reasons; the overview's sentiment split (as
// the API answers it) moves by exactly that post; Cleo Viewer sees the correction but no way to change it; Ana undoes
// it and the estimate is back, and so is the split.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { OverviewResponse } from '@contract/insights-responses';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { cspViolations, launchBrowser, type TestPage } from '@test/support/browser';
import { waitForHeading } from '@test/support/browser-harness';
import { asAna, startRealServer, type RealServer } from '@test/support/real-server';
import { signInToDemo } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);

let server: RealServer;
let browser: Browser;
const contexts: TestPage[] = [];
let savedQueryId = '';

const api = (method: 'GET' | 'POST', url: string, payload?: object) => asAna(server, method, url, payload);

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  const [authorId] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'e2e-barista', handle: 'barista', displayName: 'Barista' },
  ]);
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
  await insertPosts(server.db, [
    {
      authorId: authorId!,
      platform: 'x' as const,
      externalId: 'e2e-sentiment-1',
      text: 'The zephyr roast is wonderful, I love it, great coffee',
      postedAt: hoursAgo(5),
      sentiment: 0.8,
      sentimentLabel: 'positive' as const,
    },
    {
      authorId: authorId!,
      platform: 'x' as const,
      externalId: 'e2e-sentiment-2',
      text: 'The zephyr roast arrived on Tuesday',
      postedAt: hoursAgo(30),
    },
  ]);
  const res = await api('POST', '/api/workspaces/demo/saved-queries', {
    name: 'Zephyr roast',
    query: 'zephyr',
  });
  savedQueryId = res.json<{ id: string }>().id;
});
afterAll(async () => {
  await Promise.allSettled(contexts.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

const signInAs = (account: 'Ana Owner' | 'Cleo Viewer') =>
  signInToDemo(browser, server.origin, contexts, account);

const split = async () => {
  const o = (
    await api('POST', '/social/insights/overview', {
      workspace_id: 'demo',
      saved_query_id: savedQueryId,
      filters: { from: new Date(Date.now() - 7 * 86_400_000).toISOString() },
    })
  ).json<OverviewResponse>();
  return { ...o.sentiment, counted: o.counted };
};

const postsPage = (page: Page) =>
  page.goto(`${server.origin}/workspace/demo/insight/posts?query=${savedQueryId}&range=7d`);

describe('Correcting sentiment (real server)', () => {
  it('an owner corrects a post from its card, the figures follow, a viewer cannot, and undo restores it', async () => {
    const before = await split();
    expect(before.positive).toBeGreaterThanOrEqual(1);
    const ana = await signInAs('Ana Owner');
    await postsPage(ana);
    await waitForHeading(ana, 'Posts');
    const card = ana.locator('article.post-card').filter({ hasText: 'wonderful' });
    await expect.poll(() => card.getByText('Sentiment (estimate): positive').count()).toBe(1);
    // How sure, and why: the words that pushed it, behind a button.
    expect(await card.getByText(/positive · \d+ % sure/).count()).toBe(1);
    await card.getByRole('button', { name: 'Why?' }).click();
    await card.getByText(/— why: .*(wonderful|love|great) \+\d\.\d/).waitFor();

    await card.getByRole('button', { name: 'Correct sentiment' }).click();
    const choices = card.getByRole('group', { name: 'Sentiment of the post by @barista' });
    expect(await choices.getByRole('button', { name: 'Positive' }).getAttribute('aria-pressed')).toBe('true');
    await choices.getByRole('button', { name: 'Negative' }).click();
    await card.getByText(/Corrected by your team \(Ana Owner on .*; estimate: positive\)/).waitFor();
    expect(await card.getByRole('button', { name: 'Why?' }).count()).toBe(0);
    expect(await card.getByText('Sentiment: negative').count()).toBe(1);
    // Focus went back to the control that opened the choices.
    expect(
      await card
        .getByRole('button', { name: 'Correct sentiment' })
        .evaluate((b) => b === document.activeElement),
    ).toBe(true);

    const after = await split();
    expect({ positive: after.positive, negative: after.negative, neutral: after.neutral }).toEqual({
      positive: before.positive - 1,
      negative: before.negative + 1,
      neutral: before.neutral,
    });
    expect(after.counted).toContain('sentiment as corrected in this workspace');

    // The viewer sees the correction, and no control to change it.
    const cleo = await signInAs('Cleo Viewer');
    await postsPage(cleo);
    await waitForHeading(cleo, 'Posts');
    const seen = cleo.locator('article.post-card').filter({ hasText: 'wonderful' });
    await seen.getByText(/Corrected by your team \(Ana Owner on/).waitFor();
    expect(await seen.getByRole('button', { name: 'Correct sentiment' }).count()).toBe(0);

    // Undo: the estimate again, and the split as it was.
    await card.getByRole('button', { name: 'Correct sentiment' }).click();
    await card.getByRole('button', { name: 'Undo correction' }).click();
    await card.getByText('Sentiment (estimate): positive').waitFor();
    const undone = await split();
    expect({ positive: undone.positive, negative: undone.negative, neutral: undone.neutral }).toEqual({
      positive: before.positive,
      negative: before.negative,
      neutral: before.neutral,
    });
    expect(await cspViolations(ana)).toEqual([]);
    expect(await cspViolations(cleo)).toEqual([]);
  });
});
