// The development mailbox: a real SMTP server on loopback that keeps the last messages it receives in memory, so that
// local and development deployments send their e-mails somewhere a person (GET /dev/mailbox) or a test can read them.
// No authentication, no TLS, small limits; it never runs with APP_ENV=prod (server/config.ts).
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';
import { simpleParser, type AddressObject } from 'mailparser';

/** Messages kept: the oldest goes when one more arrives. */
export const DEV_MAILBOX_CAPACITY = 200;
/** The largest message taken, in bytes; a larger one is refused (552). */
export const DEV_MAILBOX_MAX_BYTES = 1024 * 1024;
const MAX_RECIPIENTS = 50;

export interface MailboxMessage {
  id: string;
  /** When the mailbox received it (ISO 8601). */
  receivedAt: string;
  /** The From, To and Subject headers as text ('' when absent); To falls back to the envelope's recipients. */
  from: string;
  to: string;
  subject: string;
  /** The Date header (ISO 8601), or null. */
  date: string | null;
  /** The List-Unsubscribe header as sent, or null. */
  listUnsubscribe: string | null;
  text: string;
  /** The HTML part, or null when there is none. */
  html: string | null;
}

export interface DevMailbox {
  /** smtp://127.0.0.1:PORT, for the mailer. */
  url: string;
  /** Newest first. */
  messages(): MailboxMessage[];
  message(id: string): MailboxMessage | undefined;
  clear(): void;
  stop(): Promise<void>;
}

const addressText = (value: AddressObject | AddressObject[] | undefined) =>
  [value ?? []]
    .flat()
    .map((address) => address.text)
    .join(', ');

async function readAll(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  // Read to the end either way (the client waits for its answer), keeping nothing past the limit.
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes <= DEV_MAILBOX_MAX_BYTES) chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Starts the mailbox on 127.0.0.1:`port` (0: a free port, as tests use); fails when the port is taken. */
export async function startDevMailbox({ port }: { port: number }): Promise<DevMailbox> {
  let kept: MailboxMessage[] = [];
  const server = new SMTPServer({
    banner: 'Murmur development mailbox',
    // Plain SMTP without authentication: nothing to upgrade to, nothing to sign in with, on loopback only.
    secure: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    size: DEV_MAILBOX_MAX_BYTES,
    rejectOversized: true,
    maxRecipients: MAX_RECIPIENTS,
    maxClients: 20,
    socketTimeout: 30_000,
    // stop() lets a connection still open (a pooled client) finish for a second, then closes it.
    closeTimeout: 1000,
    disableReverseLookup: true,
    logger: false,
    onData(stream, session, callback) {
      readAll(stream)
        .then(async (raw) => {
          // rejectOversized answers 552 itself, whatever is passed here.
          if (stream.sizeExceeded) return callback();
          const mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true });
          const listUnsubscribe = mail.headerLines.find((header) => header.key === 'list-unsubscribe');
          kept.unshift({
            id: randomUUID(),
            receivedAt: new Date().toISOString(),
            from: addressText(mail.from),
            to: addressText(mail.to) || session.envelope.rcptTo.map((rcpt) => rcpt.address).join(', '),
            subject: mail.subject ?? '',
            date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : null,
            listUnsubscribe: listUnsubscribe
              ? listUnsubscribe.line
                  .slice(listUnsubscribe.line.indexOf(':') + 1)
                  .replace(/\r?\n[ \t]+/g, ' ')
                  .trim()
              : null,
            text: mail.text ?? '',
            html: mail.html || null,
          });
          kept.length = Math.min(kept.length, DEV_MAILBOX_CAPACITY);
          callback();
        })
        .catch((error: unknown) => {
          callback(
            Object.assign(new Error(`Cannot read the message: ${String(error)}`), { responseCode: 451 }),
          );
        });
    },
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `The development mailbox cannot listen on port ${port}: it is in use (set DEV_MAILBOX_PORT, or DEV_MAILBOX=false)`
            : `The development mailbox cannot start: ${error.message}`,
        ),
      );
    server.once('error', failed);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', failed);
      resolve();
    });
  });
  // After the start, errors are a client's broken connection: its own problem, not the server's.
  server.on('error', () => {});
  const address = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    messages: () => [...kept],
    message: (id) => kept.find((message) => message.id === id),
    clear: () => {
      kept = [];
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
