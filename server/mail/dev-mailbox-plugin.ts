// The development mailbox's pages under /dev/mailbox: the messages, one message, and the list as JSON for tests and
// scripts. Registered only when the mailbox runs (config.DEV_MAILBOX, never in prod), as the development OpenID provider.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ServerConfig } from '@server/config';
import { securityHeaderValues } from '@server/security-headers';
import { DEV_MAILBOX_CAPACITY, type DevMailbox } from './dev-mailbox';
import {
  DEV_MAILBOX_PATH,
  mailboxPage,
  messagePage,
  notFoundPage,
  PAGE_STYLE_SOURCE,
} from './dev-mailbox-pages';

export interface DevMailboxPluginOptions {
  config: ServerConfig;
  mailbox: DevMailbox;
}

const hide = { hide: true };

function sendHtml(reply: FastifyReply, status: number, html: string) {
  return reply.status(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
}

export const devMailboxPlugin: FastifyPluginAsync<DevMailboxPluginOptions> = async (
  app,
  { config, mailbox },
) => {
  // The pages' own policy: no scripts, their one inline stylesheet, no images, no frames but the message's own (an
  // about:srcdoc document, which takes this policy too). Its links navigate the tab, which no directive restricts.
  const policy = {
    config: {
      securityHeaders: await securityHeaderValues(config, {
        'default-src': ["'none'"],
        'style-src': [PAGE_STYLE_SOURCE],
        'form-action': ["'none'"],
        'frame-ancestors': ["'none'"],
        'base-uri': ["'none'"],
      }),
    },
  };

  app.get(DEV_MAILBOX_PATH, { schema: hide, ...policy }, (_request, reply) =>
    sendHtml(reply, 200, mailboxPage(mailbox.messages(), mailbox.url, DEV_MAILBOX_CAPACITY)),
  );

  app.get(`${DEV_MAILBOX_PATH}/messages.json`, { schema: hide, ...policy }, (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ messages: mailbox.messages() }),
  );

  // Fastify answers 414 for an id over 100 characters (its maxParamLength).
  app.get<{ Params: { id: string } }>(
    `${DEV_MAILBOX_PATH}/:id`,
    { schema: hide, ...policy },
    (request, reply) => {
      const message = mailbox.message(request.params.id);
      return message ? sendHtml(reply, 200, messagePage(message)) : sendHtml(reply, 404, notFoundPage());
    },
  );
};
