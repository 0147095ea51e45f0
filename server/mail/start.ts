// Outgoing e-mail as `npm start` runs it: the development mailbox when DEV_MAILBOX is on (the mailer then sends there,
// whatever SMTP_URL says), else SMTP_URL's server, else no mailer (e-mails are not sent).
import type { ServerConfig } from '@server/config';
import type { DevMailbox } from './dev-mailbox';
import { createMailer, type Mailer } from './mailer';

export interface MailService {
  mailer: Mailer | undefined;
  devMailbox: DevMailbox | undefined;
  /** Closes the mailer, then stops the mailbox. */
  close(): Promise<void>;
}

export async function startMail(
  config: Pick<ServerConfig, 'SMTP_URL' | 'MAIL_FROM' | 'DEV_MAILBOX' | 'DEV_MAILBOX_PORT'>,
): Promise<MailService> {
  // Imported only when on: smtp-server and mailparser are never loaded in production.
  const devMailbox = config.DEV_MAILBOX
    ? await (await import('./dev-mailbox')).startDevMailbox({ port: config.DEV_MAILBOX_PORT })
    : undefined;
  const url = devMailbox?.url ?? config.SMTP_URL;
  const mailer = url ? createMailer({ SMTP_URL: url, MAIL_FROM: config.MAIL_FROM }) : undefined;
  return {
    mailer,
    devMailbox,
    async close() {
      await mailer?.close();
      await devMailbox?.stop();
    },
  };
}
