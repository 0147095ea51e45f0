// Outgoing e-mail end to end over loopback: the mailer (nodemailer) sending real SMTP to the development mailbox
// (smtp-server and mailparser) on a free port, what the mailbox keeps of a message, its cap, its size limit, and
// errors that name the server but never the URL's password.
import { createServer, type Server } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadServerConfig } from '@server/config';
import {
  DEV_MAILBOX_CAPACITY,
  DEV_MAILBOX_MAX_BYTES,
  startDevMailbox,
  type DevMailbox,
} from '@server/mail/dev-mailbox';
import { createMailer, type Mailer } from '@server/mail/mailer';
import { startMail } from '@server/mail/start';

let mailbox: DevMailbox;
let mailer: Mailer;

beforeAll(async () => {
  mailbox = await startDevMailbox({ port: 0 });
  mailer = createMailer({ SMTP_URL: mailbox.url, MAIL_FROM: 'Murmur Alerts <alerts@murmur.test>' });
});
afterAll(async () => {
  await mailer.close();
  await mailbox.stop();
});
afterEach(() => mailbox.clear());

describe('the development mailbox', () => {
  it('listens on loopback at the port it was given (0: a free one)', () => {
    expect(mailbox.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    expect(mailbox.url).not.toBe('smtp://127.0.0.1:0');
  });

  it('receives a message sent through the mailer and keeps its parsed fields', async () => {
    const before = Date.now();
    const unsubscribe = 'http://localhost:8787/unsubscribe#token=abc.def';
    const sent = await mailer.send({
      to: 'Ana Owner <ana@murmur.local>',
      subject: 'Mentions of “Murmur” doubled',
      text: `Mentions doubled.\n\nOpen the dashboard: http://localhost:8787/workspace/w/insight\n`,
      html: '<p>Mentions <b>doubled</b>.</p>',
      headers: { 'List-Unsubscribe': `<${unsubscribe}>` },
    });
    expect(sent.messageId).toMatch(/^<.+@.+>$/);

    const [message, ...others] = mailbox.messages();
    expect(others).toEqual([]);
    expect(message).toMatchObject({
      from: '"Murmur Alerts" <alerts@murmur.test>',
      to: '"Ana Owner" <ana@murmur.local>',
      subject: 'Mentions of “Murmur” doubled',
      text: 'Mentions doubled.\n\nOpen the dashboard: http://localhost:8787/workspace/w/insight\n',
      html: '<p>Mentions <b>doubled</b>.</p>',
      listUnsubscribe: `<${unsubscribe}>`,
    });
    expect(Date.parse(message!.receivedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(message!.date!)).toBeGreaterThanOrEqual(before - 1000);
    expect(mailbox.message(message!.id)).toEqual(message);
    expect(mailbox.message('no-such-id')).toBeUndefined();
  });

  it('takes the default sender, and a message without an HTML part', async () => {
    const config = loadServerConfig({});
    const plain = createMailer({ SMTP_URL: mailbox.url, MAIL_FROM: config.MAIL_FROM });
    await plain.send({ to: 'ben@murmur.local', subject: 'Plain', text: 'Only text.' });
    await plain.close();
    expect(mailbox.messages()[0]).toMatchObject({
      from: '"Murmur" <murmur@localhost>',
      to: 'ben@murmur.local',
      html: null,
      listUnsubscribe: null,
    });
  });

  it('keeps a header out of a subject that tries to add one', async () => {
    await mailer.send({ to: 'ana@murmur.local', subject: 'Hi\r\nBcc: eve@example.com', text: 'x' });
    const [message] = mailbox.messages();
    expect(message!.subject).not.toMatch(/[\r\n]/);
    expect(message!.to).toBe('ana@murmur.local');
  });

  it(`keeps the last ${DEV_MAILBOX_CAPACITY} messages, newest first`, async () => {
    const total = DEV_MAILBOX_CAPACITY + 5;
    // One connection for them all: smtp-server greets a new connection only after 100 ms (its early-talker check).
    const pooled = nodemailer.createTransport({ url: mailbox.url, pool: true, maxConnections: 1 });
    for (let i = 1; i <= total; i++) {
      await pooled.sendMail({
        from: 'a@murmur.test',
        to: 'ana@murmur.local',
        subject: `Message ${i}`,
        text: `${i}`,
      });
    }
    pooled.close();
    const messages = mailbox.messages();
    expect(messages).toHaveLength(DEV_MAILBOX_CAPACITY);
    expect(messages[0]!.subject).toBe(`Message ${total}`);
    expect(messages.at(-1)!.subject).toBe(`Message ${total - DEV_MAILBOX_CAPACITY + 1}`);
    expect(new Set(messages.map((message) => message.id)).size).toBe(DEV_MAILBOX_CAPACITY);
    mailbox.clear();
    expect(mailbox.messages()).toEqual([]);
  });

  it('refuses a message over its size limit, and keeps nothing of it', async () => {
    const text = 'x'.repeat(DEV_MAILBOX_MAX_BYTES + 1024);
    await expect(mailer.send({ to: 'ana@murmur.local', subject: 'Too big', text })).rejects.toThrow(
      /did not take the e-mail: .*552/,
    );
    expect(mailbox.messages()).toEqual([]);
  });

  it('says when its port is taken', async () => {
    const port = Number(new URL(mailbox.url).port);
    await expect(startDevMailbox({ port })).rejects.toThrow(
      `The development mailbox cannot listen on port ${port}: it is in use`,
    );
  });
});

describe('the mailer', () => {
  it('refuses a URL that is not SMTP, without repeating it', () => {
    let message = '';
    try {
      createMailer({ SMTP_URL: 'https://user:s3cret-pw@mail.example.com', MAIL_FROM: 'a@b.c' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('SMTP_URL must be an smtp:// or smtps:// URL (smtp://user:password@host:port)');
  });

  it('fails a send with a message naming the server, never the password', async () => {
    // A port that was free a moment ago: the connection is refused.
    const port = await new Promise<number>((resolve) => {
      const probe: Server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const failing = createMailer({
      SMTP_URL: `smtp://murmur:s3cret-pw@127.0.0.1:${port}`,
      MAIL_FROM: 'a@b.c',
    });
    const error = await failing
      .send({ to: 'ana@murmur.local', subject: 'x', text: 'x' })
      .catch((e: Error) => e);
    await failing.close();
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      new RegExp(`^The SMTP server at 127\\.0\\.0\\.1:${port} did not take the e-mail: .*ECONNREFUSED`),
    );
    expect((error as Error).message).not.toMatch(/s3cret|murmur:/);
  });

  it('keeps the password out of a server answer that repeats it', async () => {
    const echoing = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth: (auth, _session, callback) => callback(new Error(`Wrong password: ${auth.password}`)),
    });
    await new Promise<void>((resolve) => echoing.listen(0, '127.0.0.1', resolve));
    const { port } = echoing.server.address() as { port: number };
    const failing = createMailer({
      SMTP_URL: `smtp://murmur:s3cret%2Fpw@127.0.0.1:${port}`,
      MAIL_FROM: 'a@b.c',
    });
    const error = await failing
      .send({ to: 'ana@murmur.local', subject: 'x', text: 'x' })
      .catch((e: Error) => e);
    await failing.close();
    await new Promise<void>((resolve) => echoing.close(resolve));
    expect((error as Error).message).toMatch(/did not take the e-mail: .*Wrong password: \*\*\*/);
    expect((error as Error).message).not.toMatch(/s3cret/);
  });
});

describe('startMail (npm start)', () => {
  it('sends to the development mailbox when it is on, whatever SMTP_URL says', async () => {
    const mail = await startMail(
      loadServerConfig({
        APP_ENV: 'qa',
        DEV_MAILBOX: 'true',
        DEV_MAILBOX_PORT: '0',
        SMTP_URL: 'smtp://user:pw@mail.invalid:587',
      }),
    );
    try {
      await mail.mailer!.send({ to: 'ana@murmur.local', subject: 'Through startMail', text: 'x' });
      expect(mail.devMailbox!.messages()[0]!.subject).toBe('Through startMail');
    } finally {
      await mail.close();
    }
  });

  it('has no mailer without SMTP_URL and without the mailbox, and a mailer without the mailbox with SMTP_URL', async () => {
    const none = await startMail(loadServerConfig({ APP_ENV: 'qa' }));
    expect(none.mailer).toBeUndefined();
    expect(none.devMailbox).toBeUndefined();
    await none.close();

    const smtp = await startMail(
      loadServerConfig({ APP_ENV: 'local', SMTP_URL: 'smtps://mail.example.com' }),
    );
    expect(smtp.mailer).toBeDefined();
    expect(smtp.devMailbox).toBeUndefined();
    await smtp.close();
  });
});
