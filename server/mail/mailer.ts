// Outgoing e-mail (the alerts' messages) through one SMTP server: SMTP_URL, or the development mailbox when it runs
// (./start.ts). Nodemailer speaks SMTP; this module keeps the URL's password out of every message and log line.
import nodemailer from 'nodemailer';
import type { ServerConfig } from '@server/config';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra header lines, e.g. List-Unsubscribe. */
  headers?: Record<string, string>;
}

export interface Mailer {
  /**
   * Resolves once the SMTP server has accepted the message, with its reply (e.g. "250 2.0.0 OK") when known; throws an
   * Error whose message names no secret.
   */
  send(message: MailMessage): Promise<{ messageId: string; response?: string }>;
  close(): Promise<void>;
}

/** The SMTP server's URL (smtp:// or smtps://, user:password allowed) and the sender of every message. */
export type MailerConfig = { SMTP_URL: string } & Pick<ServerConfig, 'MAIL_FROM'>;

/**
 * Bounded waits: a server that does not answer fails the send within seconds (the caller retries later), instead of
 * Nodemailer's defaults of minutes.
 */
const TIMEOUTS = {
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 30_000,
  dnsTimeout: 10_000,
};

/** host:port as the URL names it (port defaulted as Nodemailer does: 465 for smtps, 587 for smtp). */
function serverOf(url: URL): string {
  const port = url.port || (url.protocol === 'smtps:' ? '465' : '587');
  return `${url.hostname}:${port}`;
}

/** The URL's password as Nodemailer reads it: percent-decoded, or as it is when that fails. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function createMailer(config: MailerConfig): Mailer {
  const url = URL.parse(config.SMTP_URL);
  if (!url || !/^smtps?:$/.test(url.protocol) || !url.hostname) {
    throw new Error('SMTP_URL must be an smtp:// or smtps:// URL (smtp://user:password@host:port)');
  }
  const server = serverOf(url);
  // What a server's answer might echo back, replaced before the message goes anywhere (not one of one or two
  // characters: that would garble the message and hide next to nothing).
  const secrets = [url.password, safeDecode(url.password)].filter((secret) => secret.length >= 3);
  const scrub = (text: string) => secrets.reduce((result, secret) => result.split(secret).join('***'), text);
  const transport = nodemailer.createTransport({ url: config.SMTP_URL, ...TIMEOUTS });
  return {
    async send(message) {
      try {
        const { to, subject, text, html, headers } = message;
        const info = await transport.sendMail({ from: config.MAIL_FROM, to, subject, text, html, headers });
        return { messageId: info.messageId, response: scrub(String(info.response ?? '')) };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        // No `cause`: a logger would print it whole, and only this message is known to be scrubbed. The SMTP reply's
        // code is kept (a 5xx is a permanent refusal, a 4xx a temporary one: server/alerts/deliver.ts).
        const code = (error as { responseCode?: unknown }).responseCode;
        throw Object.assign(
          new Error(`The SMTP server at ${server} did not take the e-mail: ${scrub(reason)}`),
          {
            responseCode: typeof code === 'number' ? code : undefined,
          },
        );
      }
    },
    async close() {
      transport.close();
    },
  };
}
