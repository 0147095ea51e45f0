// The saved queries screen through the real app against a stateful fake backend in the contract's types: the list
// (author, last edit, the 7 days' mentions), what each privilege may do, the plan's limit, the form's query editor
// with its live check and preview (a query with errors refused at its position, the server's own refusal, the count and
// posts of the fixed query, Ctrl+Enter never saving), a taken name, delete with its confirm step, duplicate, and leaving
// the form unsaved. jsdom cannot run CodeMirror (see test/support/query-editor-stand-in.tsx): its chunk is replaced by a
// stand-in with the same props; the real editor is tested in Chromium (test/browser/real-server-saved-queries.test.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App, createApp, type MurmurApp } from '@/app';
import type { SavedQuery } from '@contract/saved-queries';
import type { ValidateQueryResponse } from '@contract/social-query';
import type { SocialPost } from '@contract/social-posts';
import type { MemberResponse, Privilege } from '@contract/workspaces';
import { AUTH_TOKENS_KEY } from '@/lib/storage-keys';
import {
  discoverPageFixture,
  savedQueryFixture,
  savedQueryVolumeFixture,
  socialPostFixture,
  workspaceFixture,
  currentUserFixture,
} from '@test/support/contract.fixtures';
import {
  fakeJwt,
  nowSeconds,
  shellReply,
  startFakeHttp,
  type FakeHttp,
  type FakeReply,
} from '@test/support/fake-http';
import { testConfig } from '@test/support/router-harness';

vi.mock(
  '@/components/query-editor/CodeMirrorQueryEditor',
  () => import('@test/support/query-editor-stand-in'),
);

const SELF = '00000000-0000-4000-8000-000000000001';
const ANA = '00000000-0000-4000-8000-000000000002';
const Q1 = '00000000-0000-4000-8000-0000000000a1';
const Q2 = '00000000-0000-4000-8000-0000000000a2';
const NEW = '00000000-0000-4000-8000-0000000000f1';

const members: MemberResponse[] = [
  {
    user_id: SELF,
    email: 'olivia@example.com',
    first_name: 'Olivia',
    last_name: 'Self',
    privilege: 'owner',
    joined_at: 0,
  },
  {
    user_id: ANA,
    email: 'ana@example.com',
    first_name: 'Ana',
    last_name: 'Analyst',
    privilege: 'manager',
    joined_at: 0,
  },
];

const defaultQueries = (): SavedQuery[] => [
  savedQueryFixture(Q1, 'w1', {
    name: 'Coffee brands',
    query: '(coffee OR "cold brew") AND lang:en NOT decaf',
    created_by: ANA,
    updated_at: nowSeconds() - 3 * 3600,
  }),
  savedQueryFixture(Q2, 'w1', { name: 'Tea', query: 'tea', created_by: null }),
];

let running: Array<{ app: MurmurApp; server: FakeHttp }> = [];
afterEach(async () => {
  cleanup();
  for (const { app, server } of running) {
    app.session.actor.stop();
    await server.close();
  }
  running = [];
  localStorage.clear();
});

/** The posts the fake social API searches (newest first). */
const corpus: SocialPost[] = [
  socialPostFixture(1, 'Launch day! #launch party tonight', { hashtags: ['launch'] }),
  socialPostFixture(2, 'We launch the new ferry at noon #launch', { hashtags: ['launch'] }),
  socialPostFixture(3, 'Coffee at the harbour'),
  socialPostFixture(4, '東京タワーの夜景を船から 🚢 最高', { language: 'ja' }),
];

/** The fake's parser: a ")" without "(" is an error at its column, past 4096 characters the query is too long. */
function queryErrors(query: string) {
  if (query.length > 4096) {
    return [
      {
        message: `The query is too long: ${query.length} characters, at most 4096`,
        column: 4097,
        length: query.length - 4096,
      },
    ];
  }
  const close = query.indexOf(')');
  return close >= 0 && !query.includes('(')
    ? [{ message: `Unexpected ")" at column ${close + 1}`, column: close + 1, length: 1 }]
    : [];
}

/** The fake's matching: every term (operators and parentheses aside) in the text, in any case. */
function matching(query: string): SocialPost[] {
  const terms = query
    .split(/[\s()]+/)
    .filter((term) => term && !['AND', 'OR', 'NOT'].includes(term))
    .map((term) => term.toLowerCase());
  return corpus.filter((post) => terms.every((term) => post.text.toLowerCase().includes(term)));
}

interface Options {
  queries?: SavedQuery[];
  limit?: number;
  /** The server's own refusal of a create, whatever the list said (another member created one meanwhile). */
  refuseCreate?: FakeReply;
  /** The live check cannot answer (503), so only the save's own answer can tell what is wrong. */
  checkDown?: boolean;
  /** The workspace's time zone (UTC unless said). */
  timeZone?: string;
}

async function visit(
  url: string,
  privilege: Privilege,
  { queries = defaultQueries(), limit = 25, refuseCreate, checkDown = false, timeZone = 'UTC' }: Options = {},
) {
  const state = { queries, privilege };
  const server = await startFakeHttp();
  server.handle = (request): FakeReply => {
    const shell = shellReply(request);
    if (shell) return shell;
    const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    if (request.path === '/social/query/validate' && request.method === 'POST') {
      if (checkDown) return { status: 503, body: { error: 'unavailable', message: 'Try again later.' } };
      const query = String(body.query);
      const errors = queryErrors(query);
      const answer: ValidateQueryResponse = errors.length
        ? { valid: false, errors }
        : { valid: true, normalized: query, matches: matching(query).length, matches_capped: false };
      return { status: 200, body: answer };
    }
    if (request.path === '/social/discover' && request.method === 'POST') {
      return {
        status: 200,
        body: discoverPageFixture(matching(String(body.query)).slice(0, Number(body.limit))),
      };
    }
    if (request.path === '/social/saved-queries/volume' && request.method === 'POST') {
      return {
        status: 200,
        body: savedQueryVolumeFixture(
          Object.fromEntries(state.queries.map((q, i) => [q.id, [1, 2, 3, 4, 5, 6, 7, 1000 * (i + 1)]])),
        ),
      };
    }
    const path = request.path.replace(/^\/api\//, '');
    const key = `${request.method} ${path}`;
    if (key === 'GET users/me') {
      return {
        status: 200,
        body: currentUserFixture(SELF, [workspaceFixture('w1', { privilege, time_zone: timeZone })]),
      };
    }
    if (key === 'GET workspaces/w1')
      return { status: 200, body: workspaceFixture('w1', { privilege, time_zone: timeZone }) };
    if (key === 'GET workspaces/w1/members') return { status: 200, body: members };
    if (key === 'GET workspaces/w1/saved-queries') {
      return {
        status: 200,
        body: { saved_queries: state.queries, usage: { count: state.queries.length, limit } },
      };
    }
    if (key === 'POST workspaces/w1/saved-queries') {
      if (refuseCreate) return refuseCreate;
      const query = String(body.query);
      const close = query.indexOf(')');
      if (close >= 0 && !query.includes('(')) {
        return {
          status: 400,
          body: {
            error: 'invalid_query',
            message: `The query is not valid: Unexpected ")" at column ${close + 1}`,
            errors: [{ message: `Unexpected ")" at column ${close + 1}`, column: close + 1, length: 1 }],
          },
        };
      }
      if (state.queries.some((q) => q.name.toLowerCase() === String(body.name).toLowerCase())) {
        return {
          status: 409,
          body: { error: 'name_taken', message: 'A saved query of this workspace already has this name.' },
        };
      }
      const created = savedQueryFixture(NEW, 'w1', {
        name: String(body.name),
        query,
        normalized: query,
        filters: body.filters as SavedQuery['filters'],
        created_by: SELF,
        updated_at: nowSeconds(),
      });
      state.queries = [created, ...state.queries];
      return { status: 201, body: created };
    }
    const one = /^workspaces\/w1\/saved-queries\/(.+)$/.exec(path);
    if (one && request.method === 'PATCH') {
      state.queries = state.queries.map((q) => (q.id === one[1] ? { ...q, ...body } : q));
      return { status: 200, body: state.queries.find((q) => q.id === one[1]) };
    }
    if (one && request.method === 'DELETE') {
      state.queries = state.queries.filter((q) => q.id !== one[1]);
      return { status: 204 };
    }
    return { status: 404, body: { error: 'not_found', message: 'Not found.' } };
  };
  localStorage.setItem(
    AUTH_TOKENS_KEY,
    JSON.stringify({ access_token: fakeJwt(nowSeconds() + 3600, SELF), refresh_token: 'r' }),
  );
  const app = createApp(
    { ...testConfig(`${server.url}/api/`), VITE_SOCIAL_API_BASE_URL: `${server.url}/social/` },
    { history: createMemoryHistory({ initialEntries: [url] }), analytics: () => {} },
  );
  running.push({ app, server });
  render(<App app={app} />);
  const calls = (method: string, path: string) =>
    server.calls.filter((c) => c.method === method && c.path === `/api/${path}`);
  const socialCalls = (path: string) =>
    server.calls
      .filter((c) => c.method === 'POST' && c.path === `/social/${path}`)
      .map((c) => JSON.parse(c.body) as Record<string, unknown>);
  return { app, state, calls, socialCalls, location: () => app.router.state.location };
}

const row = (name: string) => screen.getByRole('rowheader', { name }).closest('tr')!;
/** The form's query editor (the stand-in), found by its name as the real one is. */
const queryEditor = () => screen.getByRole('textbox', { name: 'Query' }) as HTMLTextAreaElement;
/** The editor once its lazily loaded module has arrived (a slow machine shows the loading stand-in first). */
const editorLoaded = async () =>
  (await screen.findByRole('textbox', { name: 'Query' }, { timeout: 10_000 })) as HTMLTextAreaElement;
/** What the editor was given to underline: undefined while the check of its text is pending. */
const editorErrors = () => {
  const errors = queryEditor().dataset.errors!;
  return errors === 'pending' ? undefined : (JSON.parse(errors) as unknown[]);
};
const preview = () => within(screen.getByRole('region', { name: 'Preview' }));
const previewStatus = () => preview().getByRole('status');

describe('the list', () => {
  it('shows name, query, author, last edit and the 7 days of mentions, each name a link to its dashboards', async () => {
    const left = savedQueryFixture(NEW, 'w1', {
      name: 'Left',
      created_by: '00000000-0000-4000-8000-0000000000ff',
    });
    await visit('/workspace/w1/saved-queries', 'viewer', { queries: [...defaultQueries(), left] });
    await screen.findByRole('rowheader', { name: 'Coffee brands' });
    const coffee = within(row('Coffee brands'));
    expect(coffee.getByText('(coffee OR "cold brew") AND lang:en NOT decaf').getAttribute('title')).toBe(
      '(coffee OR "cold brew") AND lang:en NOT decaf',
    );
    expect(coffee.getByText('Ana Analyst')).toBeTruthy();
    expect(coffee.getByText('3 hours ago').getAttribute('title')).toBeTruthy();
    expect(coffee.getByRole('link', { name: 'Coffee brands' }).getAttribute('href')).toBe(
      `/workspace/w1/insight/overview?query=${Q1}`,
    );
    const sparkline = await coffee.findByRole('img', {
      name: /^1,028 mentions in the last 7 days and today/,
    });
    expect(sparkline.getAttribute('aria-label')).toContain(
      'Per day from 29 Oct to 5 Nov (today, so far): 1, 2, 3, 4, 5, 6, 7, 1,000.',
    );
    expect(within(row('Tea')).getByText('Deleted account')).toBeTruthy();
    expect(within(row('Left')).getByText('Former member')).toBeTruthy();
    expect(screen.getByText('3 of 25 saved queries')).toBeTruthy();
  });

  it("writes the last edit's exact time as every screen writes one, in the workspace's zone", async () => {
    const fixed = savedQueryFixture(NEW, 'w1', {
      name: 'Fixed',
      updated_at: Date.parse('2026-01-01T00:00:00Z') / 1000,
    });
    await visit('/workspace/w1/saved-queries', 'viewer', { queries: [fixed], timeZone: 'Asia/Seoul' });
    await screen.findByRole('rowheader', { name: 'Fixed' });
    const edited = row('Fixed').querySelector('time')!;
    expect(edited.getAttribute('title')).toBe('1 Jan 2026, 09:00 GMT+9');
  });

  it('opens the overview with the saved query selected', async () => {
    const user = userEvent.setup();
    const { location } = await visit('/workspace/w1/saved-queries', 'viewer');
    await user.click(await screen.findByRole('link', { name: 'Tea' }));
    await waitFor(() => expect(location().pathname).toBe('/workspace/w1/insight/overview'));
    expect(location().search).toEqual({ query: Q2 });
  });

  it('invites an editor to create the first query, and tells a viewer who can', async () => {
    await visit('/workspace/w1/saved-queries', 'manager', { queries: [] });
    await screen.findByText('No saved queries yet');
    expect(screen.getByRole('button', { name: 'Create your first saved query' })).toBeTruthy();
    cleanup();
    await visit('/workspace/w1/saved-queries', 'viewer', { queries: [] });
    expect(await screen.findByText(/Owners and managers of this workspace can create them/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Create your first saved query' })).toBeNull();
  });
});

describe('as a viewer', () => {
  it('shows every control disabled with the reason beside them', async () => {
    await visit('/workspace/w1/saved-queries', 'viewer');
    await screen.findByRole('rowheader', { name: 'Coffee brands' });
    const reason = screen.getByText('Only owners and managers can change saved queries.');
    const controls = [
      screen.getByRole('button', { name: 'New saved query' }),
      within(row('Coffee brands')).getByRole('button', { name: 'Edit Coffee brands' }),
      within(row('Coffee brands')).getByRole('button', { name: 'Duplicate Coffee brands' }),
      within(row('Coffee brands')).getByRole('button', { name: 'Delete Coffee brands' }),
    ];
    for (const control of controls) {
      expect((control as HTMLButtonElement).disabled).toBe(true);
      expect(control.getAttribute('aria-describedby')).toBe(reason.id);
    }
  });

  it('does not open the form from the address', async () => {
    await visit('/workspace/w1/saved-queries?edit=new', 'viewer');
    await screen.findByRole('rowheader', { name: 'Coffee brands' });
    expect(screen.queryByRole('textbox', { name: 'Query' })).toBeNull();
  });
});

describe('as an owner', () => {
  it('refuses to save a query the check finds errors in, at their position; fixed, previews and saves it', async () => {
    const user = userEvent.setup();
    const { calls, socialCalls } = await visit('/workspace/w1/saved-queries', 'owner');
    await user.click(await screen.findByRole('button', { name: 'New saved query' }));
    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Launch');
    await user.click(screen.getByRole('checkbox', { name: 'Instagram' }));
    await user.type(await editorLoaded(), 'launch AND )');

    // The live check's error: given to the editor to underline, and said in the preview.
    await waitFor(() =>
      expect(editorErrors()).toEqual([{ message: 'Unexpected ")" at column 12', column: 12, length: 1 }]),
    );
    expect(previewStatus().textContent).toBe('Unexpected ")" at column 12');
    // The check counts within the form's platforms and the preview's 30 days.
    const checked = socialCalls('query/validate').at(-1)!;
    expect(checked).toMatchObject({ workspace_id: 'w1', query: 'launch AND )' });
    expect(checked.filters).toMatchObject({ platforms: ['instagram'] });
    const from = Date.parse((checked.filters as { from: string }).from);
    expect(Math.abs(Date.now() - 30 * 86_400_000 - from)).toBeLessThan(60_000);
    expect(preview().queryByRole('article')).toBeNull();

    // Save is refused without a request: the error said at the editor (underlined there), the editor focused with the
    // caret left where the person was typing, nothing selected: the next keystrokes land there, not before the error.
    await user.click(screen.getByRole('button', { name: 'Save query' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Not saved: the query has an error. Fix it to save.');
    expect(calls('POST', 'workspaces/w1/saved-queries')).toHaveLength(0);
    expect(document.activeElement).toBe(queryEditor());
    expect([queryEditor().selectionStart, queryEditor().selectionEnd]).toEqual([12, 12]);
    // Typing on was in the middle of the text: a second refusal leaves the caret there too.
    queryEditor().setSelectionRange(6, 6);
    await user.click(screen.getByRole('button', { name: 'Save query' }));
    expect(document.activeElement).toBe(queryEditor());
    expect([queryEditor().selectionStart, queryEditor().selectionEnd]).toEqual([6, 6]);
    // Choosing the error puts the caret there again; the form keeps what was typed.
    queryEditor().setSelectionRange(0, 0);
    await user.click(within(alert).getByRole('button', { name: 'Unexpected ")" at column 12' }));
    expect([queryEditor().selectionStart, queryEditor().selectionEnd]).toEqual([11, 11]);
    expect((screen.getByRole('textbox', { name: 'Name' }) as HTMLInputElement).value).toBe('Launch');
    expect((screen.getByRole('checkbox', { name: 'Instagram' }) as HTMLInputElement).checked).toBe(true);

    // Fixed: the refusal goes, the preview shows the count and the newest matching posts, terms marked.
    await user.type(queryEditor(), '{Backspace}#launch');
    expect(screen.queryByRole('alert')).toBeNull();
    await waitFor(() =>
      expect(previewStatus().textContent).toBe(
        '2 posts match in the last 30 days, on the platforms and in the languages checked',
      ),
    );
    expect(editorErrors()).toEqual([]);
    const posts = await preview().findAllByRole('article');
    expect(posts.map((post) => post.querySelector('.post-text')!.textContent)).toEqual([
      'Launch day! #launch party tonight',
      'We launch the new ferry at noon #launch',
    ]);
    expect([...posts[1]!.querySelectorAll('mark')].map((mark) => mark.textContent)).toEqual([
      'launch',
      '#launch',
    ]);
    expect(socialCalls('discover').at(-1)).toMatchObject({
      query: 'launch AND #launch',
      sort: 'recency',
      limit: 5,
      filters: { platforms: ['instagram'] },
    });

    await user.click(screen.getByRole('button', { name: 'Save query' }));
    expect(await screen.findByText('Saved “Launch”')).toBeTruthy();
    await screen.findByRole('rowheader', { name: 'Launch' });
    expect(screen.queryByRole('textbox', { name: 'Query' })).toBeNull();
    expect(calls('POST', 'workspaces/w1/saved-queries').map((c) => JSON.parse(c.body))).toEqual([
      { name: 'Launch', query: 'launch AND #launch', filters: { platforms: ['instagram'] } },
    ]);
    expect(screen.getByText('3 of 25 saved queries')).toBeTruthy();
  });

  it("shows the server's refusal at its position when the check could not answer", async () => {
    const user = userEvent.setup();
    const { calls } = await visit('/workspace/w1/saved-queries?edit=new', 'owner', { checkDown: true });
    await user.type(await screen.findByRole('textbox', { name: 'Name' }), 'Launch');
    await user.type(await editorLoaded(), 'launch AND )');
    await waitFor(() => expect(previewStatus().textContent).toContain('Could not check the query.'));
    expect(editorErrors()).toBeUndefined();

    await user.click(screen.getByRole('button', { name: 'Save query' }));
    const error = await screen.findByRole('button', { name: 'Unexpected ")" at column 12' });
    expect(calls('POST', 'workspaces/w1/saved-queries')).toHaveLength(1);
    expect(error.closest('[role="alert"]')!.textContent).toContain('Not saved');
    // The server's errors reach the editor as the check's would; the caret stays where the person was typing.
    expect(editorErrors()).toEqual([{ message: 'Unexpected ")" at column 12', column: 12, length: 1 }]);
    expect(document.activeElement).toBe(queryEditor());
    expect([queryEditor().selectionStart, queryEditor().selectionEnd]).toEqual([12, 12]);
    expect((screen.getByRole('textbox', { name: 'Name' }) as HTMLInputElement).value).toBe('Launch');
  });

  it('names the editor by its label, and Ctrl+Enter checks the query without saving', async () => {
    const user = userEvent.setup();
    const { calls, socialCalls } = await visit('/workspace/w1/saved-queries?edit=new', 'owner');
    await user.type(await screen.findByRole('textbox', { name: 'Name' }), 'Coffee');
    expect((await editorLoaded()).getAttribute('aria-description')).toContain(
      'Ctrl+Enter updates it at once and does not save',
    );
    await user.type(queryEditor(), 'coffee{Control>}{Enter}{/Control}');
    await waitFor(() => expect(socialCalls('query/validate').map((body) => body.query)).toContain('coffee'));
    await waitFor(() => expect(previewStatus().textContent).toMatch(/^1 post matches in the last 30 days$/));
    expect(calls('POST', 'workspaces/w1/saved-queries')).toHaveLength(0);
    expect(queryEditor().value).toBe('coffee');
    expect(screen.getByRole('button', { name: 'Save query' })).toBeTruthy();
  });

  it('previews emoji and CJK terms, and refuses a query of 10,000 characters as too long', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('/workspace/w1/saved-queries?edit=new', 'owner');
    await user.type(await screen.findByRole('textbox', { name: 'Name' }), 'Harbour');
    await user.click(await editorLoaded());
    await user.paste('東京 🚢');
    await waitFor(() => expect(previewStatus().textContent).toMatch(/^1 post matches/));
    const [post] = await preview().findAllByRole('article');
    expect(post!.querySelector('.post-text')!.textContent).toBe('東京タワーの夜景を船から 🚢 最高');
    expect([...post!.querySelectorAll('mark')].map((mark) => mark.textContent)).toEqual(['東京', '🚢']);

    await user.clear(queryEditor());
    await user.paste('coffee '.repeat(1430).slice(0, 10_000));
    expect(queryEditor().value).toHaveLength(10_000);
    await waitFor(() =>
      expect(previewStatus().textContent).toBe('The query is too long: 10000 characters, at most 4096'),
    );
    expect(editorErrors()).toEqual([
      { message: 'The query is too long: 10000 characters, at most 4096', column: 4097, length: 5904 },
    ]);
    await user.click(screen.getByRole('button', { name: 'Save query' }));
    await screen.findByRole('alert');
    expect(calls('POST', 'workspaces/w1/saved-queries')).toHaveLength(0);
    expect([queryEditor().selectionStart, queryEditor().selectionEnd]).toEqual([10_000, 10_000]);
  });

  it('shows a taken name at the name field', async () => {
    const user = userEvent.setup();
    await visit('/workspace/w1/saved-queries?edit=new', 'owner');
    await user.type(await screen.findByRole('textbox', { name: 'Name' }), 'tea');
    await user.type(screen.getByRole('textbox', { name: 'Query' }), 'green tea');
    await user.click(screen.getByRole('button', { name: 'Save query' }));
    const name = screen.getByRole('textbox', { name: 'Name' });
    await waitFor(() => expect(name.getAttribute('aria-invalid')).toBe('true'));
    const message = screen.getByText('A saved query of this workspace already has this name.');
    expect(name.getAttribute('aria-describedby')).toContain(message.id);
  });

  it('renames a query', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('/workspace/w1/saved-queries', 'owner');
    await user.click(await screen.findByRole('button', { name: 'Edit Tea' }));
    const name = screen.getByRole('textbox', { name: 'Name' });
    expect(document.activeElement).toBe(name);
    await user.clear(name);
    await user.type(name, 'Green tea');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await screen.findByRole('rowheader', { name: 'Green tea' });
    expect(calls('PATCH', `workspaces/w1/saved-queries/${Q2}`).map((c) => JSON.parse(c.body))).toEqual([
      { name: 'Green tea', query: 'tea', filters: {} },
    ]);
  });

  it('asks before leaving the form with unsaved changes', async () => {
    const user = userEvent.setup();
    const { location } = await visit('/workspace/w1/saved-queries?edit=new', 'owner');
    await user.type(await screen.findByRole('textbox', { name: 'Name' }), 'Half done');
    await user.click(screen.getByRole('link', { name: 'Discover' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Discard unsaved changes?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(location().pathname).toBe('/workspace/w1/saved-queries');
    expect((screen.getByRole('textbox', { name: 'Name' }) as HTMLInputElement).value).toBe('Half done');

    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await user.click(
      within(await screen.findByRole('alertdialog', { name: 'Discard unsaved changes?' })).getByRole(
        'button',
        {
          name: 'Discard',
        },
      ),
    );
    await waitFor(() => expect(screen.queryByRole('textbox', { name: 'Name' })).toBeNull());
    expect(location().search).toEqual({});
  });

  it('deletes only after the confirm step', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('/workspace/w1/saved-queries', 'owner');
    await user.click(await screen.findByRole('button', { name: 'Delete Tea' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete “Tea”?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(calls('DELETE', `workspaces/w1/saved-queries/${Q2}`)).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Delete Tea' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('rowheader', { name: 'Tea' })).toBeNull());
    expect(calls('DELETE', `workspaces/w1/saved-queries/${Q2}`)).toHaveLength(1);
    expect(screen.getByText('1 of 25 saved queries')).toBeTruthy();
  });

  it('duplicates as "<name> (copy)", then the next free name', async () => {
    const user = userEvent.setup();
    const { calls } = await visit('/workspace/w1/saved-queries', 'owner', {
      queries: [
        ...defaultQueries(),
        savedQueryFixture(NEW.replace('f1', 'f2'), 'w1', { name: 'tea (COPY)' }),
      ],
    });
    await user.click(await screen.findByRole('button', { name: 'Duplicate Tea' }));
    await screen.findByRole('rowheader', { name: 'Tea (copy 2)' });
    expect(calls('POST', 'workspaces/w1/saved-queries').map((c) => JSON.parse(c.body))).toEqual([
      { name: 'Tea (copy 2)', query: 'tea', filters: {} },
    ]);
  });
});

describe("the plan's limit", () => {
  it('warns from 80 %', async () => {
    await visit('/workspace/w1/saved-queries', 'owner', { limit: 2 });
    expect(await screen.findByText('2 of 2 saved queries')).toBeTruthy();
    cleanup();
    const queries = Array.from({ length: 4 }, (_, i) =>
      savedQueryFixture(`00000000-0000-4000-8000-00000000000${i}`, 'w1', { name: `Q${i}` }),
    );
    await visit('/workspace/w1/saved-queries', 'owner', { queries, limit: 5 });
    expect(await screen.findByText('You have used 4 of the 5 saved queries your plan allows.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'New saved query' }) as HTMLButtonElement).disabled).toBe(
      false,
    );
  });

  it("shows the server's refusal when the limit was reached meanwhile, keeping the form", async () => {
    const user = userEvent.setup();
    const message = 'This workspace already has 25 saved queries, the most its plan allows.';
    await visit('/workspace/w1/saved-queries?edit=new', 'owner', {
      refuseCreate: { status: 409, body: { error: 'saved_query_limit', message } },
    });
    await user.type(await screen.findByRole('textbox', { name: 'Name' }), 'One more');
    await user.type(screen.getByRole('textbox', { name: 'Query' }), 'coffee');
    await user.click(screen.getByRole('button', { name: 'Save query' }));
    expect((await screen.findByRole('alert')).textContent).toBe(message);
    expect((screen.getByRole('textbox', { name: 'Name' }) as HTMLInputElement).value).toBe('One more');
  });

  it('disables create and duplicate at the limit, saying why', async () => {
    await visit('/workspace/w1/saved-queries', 'owner', { limit: 2 });
    await screen.findByRole('rowheader', { name: 'Tea' });
    const reason = screen.getByText('Your plan allows 2 saved queries. Delete one to add another.');
    for (const control of [
      screen.getByRole('button', { name: 'New saved query' }),
      screen.getByRole('button', { name: 'Duplicate Tea' }),
    ]) {
      expect((control as HTMLButtonElement).disabled).toBe(true);
      expect(control.getAttribute('aria-describedby')).toBe(reason.id);
    }
    // Editing and deleting stay open.
    expect((screen.getByRole('button', { name: 'Edit Tea' }) as HTMLButtonElement).disabled).toBe(false);
    expect((screen.getByRole('button', { name: 'Delete Tea' }) as HTMLButtonElement).disabled).toBe(false);
  });
});
