// The development mailbox's pages in the app (server/mail/dev-mailbox-plugin.ts): mounted only while the mailbox runs
// and never in prod, the list and one message with every value escaped, the HTML part in a sandboxed frame under a
// policy without scripts, 404 for an unknown message, and the list as JSON.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '@server/app';
import { loadServerConfig } from '@server/config';
import { startDevMailbox, type DevMailbox } from '@server/mail/dev-mailbox';
import { createMailer, type Mailer } from '@server/mail/mailer';
import { createTestServer, type TestServer } from '@test/support/server-harness';

let server: TestServer;
let mailbox: DevMailbox;
let mailer: Mailer;
const apps: FastifyInstance[] = [];

/** The app on the test server's database, with these settings and the mailbox in its deps. */
async function appWith(env: Record<string, string>) {
  const app = await buildApp({
    db: server.db,
    config: loadServerConfig({ DEV_OIDC: 'false', ...env }),
    accessTokens: server.accessTokens,
    mailer,
    devMailbox: mailbox,
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  server = await createTestServer();
  mailbox = await startDevMailbox({ port: 0 });
  mailer = createMailer({ SMTP_URL: mailbox.url, MAIL_FROM: 'Murmur <murmur@localhost>' });
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await mailer.close();
  await mailbox.stop();
  await server.close();
});

describe('the development mailbox pages', () => {
  let app: FastifyInstance;
  let id: string;
  const unsubscribe = 'http://localhost:8787/unsubscribe#token=a.b';

  beforeAll(async () => {
    app = await appWith({ APP_ENV: 'local', DEV_MAILBOX_PORT: '0' });
    await mailer.send({
      to: 'ana@murmur.local',
      subject: 'Older message',
      text: 'first',
    });
    await mailer.send({
      to: '"<b>Ana</b>" <ana@murmur.local>',
      subject: '<script>alert(1)</script> spike',
      text: `Mentions doubled <img src=x>.\nOpen the dashboard: http://localhost:8787/workspace/w/insight?period=day.\n`,
      html: `<p onclick="alert(2)">Spike</p><script>alert(3)</script><a href="${unsubscribe}">Unsubscribe</a>`,
      headers: { 'List-Unsubscribe': `<${unsubscribe}>` },
    });
    id = mailbox.messages()[0]!.id;
  });

  it('lists the messages newest first, each subject escaped and a link to its message', async () => {
    const answer = await app.inject({ method: 'GET', url: '/dev/mailbox' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.body).not.toMatch(/<script|<b>Ana/);
    expect(answer.body).toContain(
      `<a href="/dev/mailbox/${id}">&lt;script&gt;alert(1)&lt;/script&gt; spike</a>`,
    );
    expect(answer.body).toContain('&quot;&lt;b&gt;Ana&lt;/b&gt;&quot; &lt;ana@murmur.local&gt;');
    expect(answer.body.indexOf('spike</a>')).toBeLessThan(answer.body.indexOf('Older message'));
    expect(answer.body).toContain(mailbox.url);
  });

  it('shows one message: its headers, its text with links, its HTML in a sandboxed frame, all escaped', async () => {
    const answer = await app.inject({ method: 'GET', url: `/dev/mailbox/${id}` });
    expect(answer.statusCode).toBe(200);
    const page = answer.body;
    expect(page).not.toMatch(/<script|<img|<b>|onclick="/);
    expect(page).toContain('<h1 id="title">&lt;script&gt;alert(1)&lt;/script&gt; spike</h1>');
    for (const name of ['From', 'To', 'Subject', 'Date', 'List-Unsubscribe', 'Received']) {
      expect(page).toContain(`<dt>${name}</dt>`);
    }
    expect(page).toContain('<dd>&quot;Murmur&quot; &lt;murmur@localhost&gt;</dd>');
    expect(page).toContain(`<dd>&lt;<a href="${unsubscribe}">${unsubscribe}</a>&gt;</dd>`);
    // The text's URL is a link, the sentence's full stop left out of it; the rest of the text is escaped.
    const dashboard = 'http://localhost:8787/workspace/w/insight?period=day';
    expect(page).toContain(`Open the dashboard: <a href="${dashboard}">${dashboard}</a>.`);
    expect(page).toContain('Mentions doubled &lt;img src=x&gt;.');
    // The HTML part: in an attribute, escaped, in a frame without scripts whose links open in the tab.
    expect(page).toMatch(
      /<iframe title="[^"]+" sandbox="allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation"\n?srcdoc="&lt;base target=&quot;_top&quot;&gt;&lt;p onclick=&quot;alert\(2\)&quot;&gt;Spike/,
    );
    const policy = String(answer.headers['content-security-policy']);
    expect(policy).toMatch(/default-src 'none'/);
    expect(policy).not.toMatch(/script-src/);
    expect(policy).toMatch(/style-src 'sha256-[^']+'(;|$)/);
  });

  it('answers 404 for a message it does not have', async () => {
    for (const url of [
      '/dev/mailbox/no-such-id',
      `/dev/mailbox/${randomUUID()}`,
      '/dev/mailbox/%3Cscript%3E',
    ]) {
      const answer = await app.inject({ method: 'GET', url });
      expect(answer.statusCode).toBe(404);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.body).toContain('No such message');
      expect(answer.body).not.toContain('<script');
    }
  });

  it('gives the list as JSON, with each message text', async () => {
    const answer = await app.inject({ method: 'GET', url: '/dev/mailbox/messages.json' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    const { messages } = answer.json<{ messages: { id: string; subject: string; text: string }[] }>();
    expect(messages.map((message) => message.subject)).toEqual([
      '<script>alert(1)</script> spike',
      'Older message',
    ]);
    expect(messages[0]).toMatchObject({ id, listUnsubscribe: `<${unsubscribe}>` });
    expect(messages[1]!.text).toBe('first\n');
  });
});

describe('where the pages are not', () => {
  it('are not mounted when the mailbox is off, even with one in the deps', async () => {
    const app = await appWith({ APP_ENV: 'qa' });
    const answer = await app.inject({ method: 'GET', url: '/dev/mailbox' });
    expect(answer.statusCode).toBe(404);
    expect(answer.body).not.toContain('Development mailbox');
  });

  it('are never mounted in prod', async () => {
    const app = await appWith({ APP_ENV: 'prod' });
    for (const url of ['/dev/mailbox', '/dev/mailbox/messages.json']) {
      expect((await app.inject({ method: 'GET', url })).statusCode).toBe(404);
    }
  });

  it('are not mounted without a running mailbox (the test server: no deps.devMailbox)', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/dev/mailbox' })).statusCode).toBe(404);
  });
});
