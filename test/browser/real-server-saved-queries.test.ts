// The saved queries screen end to end against the REAL server: Ana Owner writes a query with a mistake in the query
// editor (CodeMirror), sees it underlined at its column, is refused the save, fixes it, sees the preview's count and the
// posts the API gives for it, and saves it; the list shows its 7-day mentions as the social API counts them. Emoji and
// CJK terms are underlined and marked where they are, and a 10,000-character query is refused as too long without the
// page choking. The editor mounts without a CSP violation; the form is usable at a phone's width. Cleo Viewer sees the
// same list with every control disabled and the reason. Posts are written straight into the database so counts are not
// zero.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { demoUserIds } from '@server/seed';
import type { SavedQueryVolume } from '@contract/saved-queries';
import { cspViolations, launchBrowser, type TestPage } from '@test/support/browser';
import { startRealServer, type RealServer } from '@test/support/real-server';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { signInToDemo } from '@test/support/dev-sign-in';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);
const NAME = 'Harbour ferries';

let server: RealServer;
let browser: Browser;
const contexts: TestPage[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
  const [authorId] = await insertProfiles(server.db, [
    { platform: 'x', externalId: 'e2e-ferry', handle: 'ferryfan', displayName: 'Ferry Fan' },
  ]);
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
  await insertPosts(
    server.db,
    [1, 30, 50, 75, 120].map((hours, i) => ({
      authorId: authorId!,
      platform: 'x' as const,
      externalId: `e2e-ferry-${i}`,
      text: `The harbourferry is late again #ferries`,
      postedAt: hoursAgo(hours),
    })),
  );
  await insertPosts(server.db, [
    {
      authorId: authorId!,
      platform: 'x' as const,
      externalId: 'e2e-ferry-tokyo',
      text: '東京湾のフェリー 🚢 最高',
      postedAt: hoursAgo(2),
    },
  ]);
});
afterAll(async () => {
  await Promise.allSettled(contexts.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

const signInAs = (account: 'Ana Owner' | 'Cleo Viewer') =>
  signInToDemo(browser, server.origin, contexts, account);

const api = async (url: string, payload?: object) => {
  const anaId = (await demoUserIds(server.db)).get('ana@murmur.local')!;
  return server.app.inject({
    method: payload ? 'POST' : 'GET',
    url,
    headers: { authorization: `Bearer ${await server.tokenFor(anaId)}` },
    ...(payload ? { payload } : {}),
  });
};

/** expect.poll with room for a loaded machine (its default gives up after a second). */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000 });

/** Opens the form and waits for the query editor (CodeMirror) itself, not its loading stand-in. */
async function openForm(page: Page) {
  await page
    .getByRole('button', { name: /New saved query|Create your first saved query/ })
    .first()
    .click();
  await page.locator('.cm-content').waitFor();
  return page.getByRole('textbox', { name: 'Query' });
}

const status = (page: Page) => page.locator('#saved-query-preview-status');
const previewTexts = (page: Page) => page.locator('.query-preview .post-text').allInnerTexts();
/** The element focused inside the editor's shadow root, by class. */
const focusedInEditor = (page: Page) =>
  page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.className ?? null);

/** The text selected in the editor (Chromium gives a shadow root its own getSelection). */
const editorSelection = (page: Page) =>
  page.evaluate(() => {
    const root = document.activeElement?.shadowRoot as
      (ShadowRoot & { getSelection?: () => Selection }) | null;
    return root?.getSelection?.()?.toString() ?? null;
  });

const savedNames = async () =>
  (await api('/api/workspaces/demo/saved-queries'))
    .json<{ saved_queries: Array<{ name: string }> }>()
    .saved_queries.map((q) => q.name);

describe('saved queries (real server)', () => {
  it('Ana is refused the save of a query with an error, fixes it, sees the preview and saves it', async () => {
    const page = await signInAs('Ana Owner');
    await openForm(page);
    // The editor mounted (its styles adopted in the shadow root) without a CSP violation.
    expect(await cspViolations(page)).toEqual([]);

    await page.getByRole('textbox', { name: 'Name' }).fill(NAME);
    await page.getByRole('checkbox', { name: 'X', exact: true }).check();
    // A click on the label focuses the editor, which its text names.
    await page.locator('#saved-query-text-label').click();
    expect(await focusedInEditor(page)).toContain('cm-content');
    await page.keyboard.type('harbourferry late)');
    // The server's error, underlined at column 18 (the stray parenthesis) and said in words.
    await poll(() => page.locator('.cm-lintRange-error').innerText()).toBe(')');
    await poll(() => status(page).innerText()).toBe('Unexpected ")" at column 18');

    // Save is refused, the editor focused with the caret left where Ana was typing, nothing selected.
    await page.getByRole('button', { name: 'Save query' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Not saved: the query has an error' });
    await refusal.waitFor();
    expect(await refusal.getByRole('button').innerText()).toBe('Unexpected ")" at column 18');
    expect(await focusedInEditor(page)).toContain('cm-content');
    expect(await editorSelection(page)).toBe('');
    expect(await savedNames()).not.toContain(NAME);

    // Fixed: the preview counts within X in the last 30 days and lists the posts discover gives, terms marked.
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await poll(() => refusal.count()).toBe(0);
    await poll(() => status(page).innerText()).toBe(
      '5 posts match in the last 30 days, on the platforms and in the languages checked',
    );
    expect(await page.locator('.cm-lintRange-error').count()).toBe(0);
    const expected = (
      await api('/social/discover', {
        workspace_id: 'demo',
        query: 'harbourferry late',
        filters: { platforms: ['x'], from: new Date(Date.now() - 30 * 86_400_000).toISOString() },
        sort: 'recency',
        limit: 5,
      })
    ).json<{ posts: Array<{ text: string }> }>();
    expect(expected.posts).toHaveLength(5);
    await poll(() => previewTexts(page)).toEqual(expected.posts.map((post) => post.text));
    expect(await page.locator('.query-preview .post-text').first().locator('mark').allInnerTexts()).toEqual([
      'harbourferry',
      'late',
    ]);
    expect(await cspViolations(page)).toEqual([]);

    // Ctrl+Enter in the editor checks at once; it neither saves nor adds a line.
    await page.keyboard.press('Control+Enter');
    await page.waitForTimeout(500);
    expect(await page.locator('.cm-content').innerText()).toBe('harbourferry late');
    expect(await savedNames()).not.toContain(NAME);
    expect(await page.getByRole('button', { name: 'Save query' }).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Save query' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: `Saved “${NAME}”` })
      .first()
      .waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: NAME }) });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(0).innerText()).toBe('harbourferry late');
    expect(await row.getByRole('cell').nth(1).innerText()).toBe('Ana Owner');

    // The count the list shows is the one the social API gives for that saved query.
    const sparkline = row.getByRole('img', { name: /mentions in the last 7 days and today/ });
    await sparkline.waitFor();
    const label = (await sparkline.getAttribute('aria-label'))!;
    const answer = await api('/social/saved-queries/volume', { workspace_id: 'demo' });
    expect(answer.statusCode).toBe(200);
    const volume = answer.json<SavedQueryVolume>();
    const listed = await row.getByRole('rowheader').getByRole('link').getAttribute('href');
    const id = new URL(listed!, server.origin).searchParams.get('query');
    const entry = volume.saved_queries.find((q) => q.id === id)!;
    expect(entry.total).toBe(5);
    expect(label).toMatch(new RegExp(`^${entry.total} mentions in the last 7 days and today`));
  });

  it('leaves the caret where the person was typing when a save is refused: typing on lands there', async () => {
    const page = await signInAs('Ana Owner');
    await openForm(page);
    await page.getByRole('textbox', { name: 'Name' }).fill('Nova batteries');
    await page.locator('#saved-query-text-label').click();
    const typed = 'nova AND (battery OR ';
    await page.keyboard.type(typed);
    await poll(() => status(page).innerText()).toBe('Expected a term after "OR" at column 19');
    await page.getByRole('button', { name: 'Save query' }).click();
    await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
    expect(await focusedInEditor(page)).toContain('cm-content');
    expect(await editorSelection(page)).toBe('');
    // The error is marked where it is, and the caret was not moved there (column 19, in front of the "OR").
    expect(await page.locator('.cm-lintRange-error').count()).toBeGreaterThan(0);
    await page.keyboard.type('screen) NOT refund');
    await poll(() => page.locator('.cm-content').innerText()).toBe(`${typed}screen) NOT refund`);
    await poll(() => status(page).innerText()).not.toContain('column');

    // Typing in the middle: Ana goes back into the parentheses, a save is refused, her next word lands there.
    await page.keyboard.press('End');
    await page.keyboard.type(' OR');
    await poll(() => status(page).innerText()).toMatch(/column/);
    for (let i = 0; i < ') NOT refund OR'.length; i += 1) await page.keyboard.press('ArrowLeft');
    await page.getByRole('button', { name: 'Save query' }).click();
    await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
    expect(await focusedInEditor(page)).toContain('cm-content');
    await page.keyboard.type(' display');
    await poll(() => page.locator('.cm-content').innerText()).toBe(
      'nova AND (battery OR screen display) NOT refund OR',
    );
    expect(await savedNames()).not.toContain('Nova batteries');
  });

  it('underlines and marks emoji and CJK where they are, and refuses 10,000 characters as too long', async () => {
    const page = await signInAs('Ana Owner');
    const query = await openForm(page);
    await page.getByRole('textbox', { name: 'Name' }).fill('Tokyo ferries');
    await query.click();
    // 東京 and 🚢 are two UTF-16 code units each: the stray parenthesis is column 7 for the server and the editor.
    await page.keyboard.insertText('東京 🚢 )');
    await poll(() => page.locator('.cm-lintRange-error').innerText()).toBe(')');
    await poll(() => status(page).innerText()).toBe('Unexpected ")" at column 7');
    await page.keyboard.press('Backspace');
    await poll(() => status(page).innerText()).toBe('1 post matches in the last 30 days');
    await poll(() => previewTexts(page)).toEqual(['東京湾のフェリー 🚢 最高']);
    expect(await page.locator('.query-preview .post-text mark').allInnerTexts()).toEqual(['東京', '🚢']);

    // 10,000 characters: shown, checked, underlined from column 4097, and refused.
    await page.keyboard.press('Control+a');
    const long = 'ferry '.repeat(1667).slice(0, 10_000);
    await page.keyboard.insertText(long);
    await poll(() => status(page).innerText()).toBe('The query is too long: 10000 characters, at most 4096');
    const underlined = await page.locator('.cm-lintRange-error').allInnerTexts();
    expect(underlined.join('')).toBe(long.slice(4096));
    expect(await page.locator('.cm-content').innerText()).toBe(long);
    await page.getByRole('button', { name: 'Save query' }).click();
    await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
    expect(await editorSelection(page)).toBe('');
    expect(await cspViolations(page)).toEqual([]);
    // The record is not blind, even to the editor's shadow root: a style attribute a script writes there is reported.
    await page.evaluate(() => {
      const span = document.createElement('span');
      document.querySelector('.query-editor')!.shadowRoot!.append(span);
      span.setAttribute('style', 'color: red');
    });
    await poll(async () => (await cspViolations(page)).map((violation) => violation.directive)).toEqual([
      'style-src-attr',
    ]);
  });

  it('lays the preview beside the query on a wide screen and under it on a phone', async () => {
    const page = await signInAs('Ana Owner');
    await page.setViewportSize({ width: 1400, height: 900 });
    const query = await openForm(page);
    await query.click();
    await page.keyboard.insertText('harbourferry OR (東京 🚢)');
    await page.locator('.query-preview .post-card').first().waitFor();

    const box = async (selector: string) => (await page.locator(selector).boundingBox())!;
    let editor = await box('.saved-query-text');
    let preview = await box('.query-preview');
    expect(preview.x).toBeGreaterThan(editor.x + editor.width);
    expect(preview.y).toBeLessThan(editor.y + editor.height);

    await page.setViewportSize({ width: 375, height: 800 });
    await poll(async () => (await box('.query-preview')).x).toBeLessThan(100);
    editor = await box('.saved-query-text');
    preview = await box('.query-preview');
    expect(preview.y).toBeGreaterThanOrEqual(editor.y + editor.height);
    const filters = await box('.saved-query-filters');
    expect(filters.y).toBeGreaterThan(preview.y);
    // Nothing in the form is wider than it: no sideways scrolling inside it. (The workspace frame's top bar has a
    // minimum width of its own, wider than 375 px, whatever the page.)
    expect(
      await page.locator('.saved-query-form').evaluate((form) => form.scrollWidth - form.clientWidth),
    ).toBe(0);
  });

  it('Cleo sees the list with every control disabled and the reason', async () => {
    const page = await signInAs('Cleo Viewer');
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: NAME }) });
    await row.waitFor();
    await page.getByText('Only owners and managers can change saved queries.').waitFor();
    for (const button of [
      page.getByRole('button', { name: 'New saved query' }),
      row.getByRole('button', { name: `Edit ${NAME}` }),
      row.getByRole('button', { name: `Duplicate ${NAME}` }),
      row.getByRole('button', { name: `Delete ${NAME}` }),
    ]) {
      expect(await button.isDisabled()).toBe(true);
      expect(await button.getAttribute('title')).toBe('Only owners and managers can change saved queries.');
    }
  });
});
