// The corpus file upload of the scraping screen (src/api/scraping.ts): sent with XMLHttpRequest (jsdom's, to a local
// HTTP server) around the API client, so its session handling is its own. The access token refused when the file is
// sent (it lapsed since the users/me that preceded it) is refreshed and the file sent once more; a session that cannot
// be refreshed, or any other refusal, ends in a message that says what to do.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '@/api/api';
import { createSession } from '@/api/session';
import { uploadCorpusFile } from '@/api/scraping';
import { createReporter } from '@/lib/reporting';
import { AUTH_TOKENS_KEY } from '@/lib/storage-keys';
import { currentUserFixture } from '@test/support/contract.fixtures';
import { fakeJwt, nowSeconds, startFakeHttp, type FakeHttp, type FakeReply } from '@test/support/fake-http';

const ME = currentUserFixture('u1', ['internal']);
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-allow-methods': 'POST',
};
const JOB = {
  id: 'job-1',
  name: 'posts.ndjson',
  source: 'upload',
  platform: null,
  params: {
    source: 'upload',
    upload_id: '0b9a4f7e-4c8f-4f57-9d0e-6b1f0c3f2a11',
    format: 'ndjson',
    file_name: 'posts.ndjson',
    bytes: 24,
  },
  every_minutes: null,
  state: 'active',
  next_run_at: 1_795_000_000,
  created_at: 1_795_000_000,
  updated_at: 1_795_000_000,
  last_run: null,
};

let server: FakeHttp;
beforeAll(async () => {
  server = await startFakeHttp();
});
afterAll(() => server.close());
afterEach(() => {
  server.calls.length = 0;
  localStorage.clear();
});

/** The API client and session as the app makes them, signed in with `access`; refresh hands out `renewed`. */
function setup(access: string) {
  localStorage.setItem(AUTH_TOKENS_KEY, JSON.stringify({ access_token: access, refresh_token: 'r1' }));
  const reporter = createReporter();
  const session = createSession({
    storage: localStorage,
    reporter,
    refresh: (token) => api.refresh(token),
    navigateToLogin: () => undefined,
  });
  const api = createApi({ apiBaseUrl: `${server.url}/api/`, reporter, gate: session.gate });
  return api;
}

const file = () => new File(['{"platform":"rss"}\n'], 'posts.ndjson');
const uploads = () => server.calls.filter((c) => c.method === 'POST' && c.path === '/api/scraping/uploads');

/** users/me and refresh as the server answers them: `valid` tokens are accepted; refresh issues `renewed`. */
function auth(valid: Set<string>, renewed: string) {
  return (path: string, authorization: string | undefined): FakeReply | undefined => {
    if (path === '/api/auth/refresh') {
      valid.add(renewed);
      return { status: 200, body: { access_token: renewed, refresh_token: 'r2' } };
    }
    if (path === '/api/users/me') {
      return valid.has(authorization?.slice('Bearer '.length) ?? '')
        ? { status: 200, body: ME }
        : { status: 401, body: { error: 'unauthorized' } };
    }
    return undefined;
  };
}

describe('corpus file upload', () => {
  it('sends the file with its progress and answers the new upload job', async () => {
    const token = fakeJwt(nowSeconds() + 3600);
    const api = setup(token);
    const answer = auth(new Set([token]), 'unused');
    server.handle = (r) =>
      r.method === 'OPTIONS'
        ? { status: 204, headers: CORS }
        : (answer(r.path, r.headers.authorization) ?? { status: 201, body: JOB, headers: CORS });
    const progress: number[] = [];
    const job = await uploadCorpusFile(api, `${server.url}/api/`, file(), (f) => progress.push(f));
    expect(job.id).toBe('job-1');
    expect(uploads()).toHaveLength(1);
    expect(uploads()[0]!.body).toBe('{"platform":"rss"}\n');
    expect(uploads()[0]!.headers.authorization).toBe(`Bearer ${token}`);
    expect(progress.at(-1)).toBe(1);
  });

  it('refreshes the session and sends the file again when the token lapsed before it was sent', async () => {
    const stale = fakeJwt(nowSeconds() + 3600, 'stale');
    const renewed = fakeJwt(nowSeconds() + 3600, 'renewed');
    const api = setup(stale);
    // users/me still took the stale token; a moment later the upload is refused with it, and users/me too.
    const valid = new Set([stale]);
    const answer = auth(valid, renewed);
    server.handle = (r) => {
      if (r.method === 'OPTIONS') return { status: 204, headers: CORS };
      const known = answer(r.path, r.headers.authorization);
      if (known) return known;
      valid.delete(stale);
      return r.headers.authorization === `Bearer ${renewed}`
        ? { status: 201, body: JOB, headers: CORS }
        : { status: 401, body: { error: 'unauthorized', message: 'Not signed in.' }, headers: CORS };
    };
    const job = await uploadCorpusFile(api, `${server.url}/api/`, file(), () => undefined);
    expect(job.id).toBe('job-1');
    expect(uploads().map((c) => c.headers.authorization)).toEqual([`Bearer ${stale}`, `Bearer ${renewed}`]);
    expect(server.count('POST', '/api/auth/refresh')).toBe(1);
  });

  it('says the session ended when the upload is still refused, and passes on the server’s other refusals', async () => {
    const token = fakeJwt(nowSeconds() + 3600);
    const api = setup(token);
    const answer = auth(new Set([token]), 'unused');
    let reply: FakeReply = { status: 401, body: { error: 'unauthorized' }, headers: CORS };
    server.handle = (r) =>
      r.method === 'OPTIONS'
        ? { status: 204, headers: CORS }
        : (answer(r.path, r.headers.authorization) ?? reply);
    await expect(uploadCorpusFile(api, `${server.url}/api/`, file(), () => undefined)).rejects.toThrow(
      'Your session has ended: sign in again, then upload the file again.',
    );
    expect(uploads()).toHaveLength(2);

    reply = {
      status: 413,
      body: { error: 'too_large', message: 'Files up to 200 MB can be uploaded.' },
      headers: CORS,
    };
    await expect(uploadCorpusFile(api, `${server.url}/api/`, file(), () => undefined)).rejects.toThrow(
      'Files up to 200 MB can be uploaded.',
    );
    reply = 'drop';
    await expect(uploadCorpusFile(api, `${server.url}/api/`, file(), () => undefined)).rejects.toThrow(
      /the server could not be reached/,
    );
  });
});
