// The development mailbox's pages, rendered on the server: the list of messages and one message. No scripts (the CSP
// allows none); every value escaped; a message's HTML part shown in a sandboxed frame, its links opening in the tab.
import { escapeHtml, htmlPage, pageStyle } from '@server/html-page';
import type { MailboxMessage } from './dev-mailbox';

/** Where the pages live; the list is also at DEV_MAILBOX_PATH/messages.json. */
export const DEV_MAILBOX_PATH = '/dev/mailbox';

const STYLE = pageStyle(`
  :root { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1c1b29; background: #f7f7fb;
    line-height: 1.5; }
  * { box-sizing: border-box; }
  body { margin: 0; }
  main { max-width: 60rem; margin: 2rem auto; padding: 2rem; background: #fff; border: 1px solid #dedce8;
    border-radius: 12px; }
  h1 { font-size: 1.5rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
  h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
  p { margin: .25rem 0; }
  .muted { color: #5d5b73; }
  a { color: #4338ca; }
  table { width: 100%; border-collapse: collapse; margin-top: 1rem; }
  th, td { text-align: left; padding: .5rem; border-bottom: 1px solid #dedce8; vertical-align: top; }
  td { overflow-wrap: anywhere; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 1rem 0; }
  dt { font-weight: 600; }
  dd { margin: 0; overflow-wrap: anywhere; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f7f7fb; border: 1px solid #dedce8;
    border-radius: 8px; padding: 1rem; margin: 0; }
  iframe { width: 100%; height: 24rem; border: 1px solid #dedce8; border-radius: 8px; background: #fff; }
  details { margin-top: .5rem; }
  :focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
`);

/** The one inline stylesheet of these pages, as a CSP source: the policy allows it and no other inline style. */
export const PAGE_STYLE_SOURCE = STYLE.source;

const page = (title: string, body: string) =>
  htmlPage({ title, style: STYLE, body: `<main aria-labelledby="title">\n${body}\n</main>` });

const URL_IN_TEXT = /https?:\/\/[^\s<>"']+/g;

/** Text escaped, with its http(s) URLs as links (a sentence's closing punctuation left out of them). */
function linkify(text: string): string {
  let html = '';
  let from = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const url = match[0].replace(/[.,;:!?)\]]+$/, '');
    html += `${escapeHtml(text.slice(from, match.index))}<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`;
    from = match.index + url.length;
  }
  return html + escapeHtml(text.slice(from));
}

/** An ISO time as `2026-01-31 12:00:00 UTC`, in a <time> element. */
const time = (iso: string) =>
  `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'))}</time>`;

const messageHref = (id: string) => `${DEV_MAILBOX_PATH}/${encodeURIComponent(id)}`;

export function mailboxPage(messages: MailboxMessage[], smtpUrl: string, capacity: number): string {
  const rows = messages
    .map(
      (message) => `<tr>
<td>${time(message.receivedAt)}</td>
<td>${escapeHtml(message.to)}</td>
<td><a href="${messageHref(message.id)}">${escapeHtml(message.subject || '(no subject)')}</a></td>
</tr>`,
    )
    .join('\n');
  return page(
    'Development mailbox · Murmur',
    `<h1 id="title">Development mailbox</h1>
<p class="muted">The e-mails this server sends land here, not in anyone's inbox: the last ${capacity}, newest first,
kept in memory until the server stops. It exists only in local and development deployments.</p>
<p class="muted">SMTP: <code>${escapeHtml(smtpUrl)}</code> · As JSON: <a href="${DEV_MAILBOX_PATH}/messages.json">messages.json</a></p>
${
  messages.length
    ? `<table>
<caption class="muted">${messages.length} ${messages.length === 1 ? 'message' : 'messages'}</caption>
<thead><tr><th scope="col">Received</th><th scope="col">To</th><th scope="col">Subject</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`
    : '<p>No messages yet.</p>'
}`,
  );
}

export function messagePage(message: MailboxMessage): string {
  const subject = message.subject || '(no subject)';
  const header = (name: string, value: string) => `<dt>${name}</dt><dd>${value}</dd>`;
  // Links in the frame open in the tab (a click allows it); target=_blank ones as ordinary tabs.
  const frame = message.html
    ? `<iframe title="The message's HTML part" sandbox="allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation"
srcdoc="${escapeHtml(`<base target="_top">${message.html}`)}"></iframe>
<details><summary>HTML source</summary><pre>${escapeHtml(message.html)}</pre></details>`
    : '<p class="muted">This message has no HTML part.</p>';
  return page(
    `${subject} · Development mailbox · Murmur`,
    `<p><a href="${DEV_MAILBOX_PATH}">All messages</a></p>
<h1 id="title">${escapeHtml(subject)}</h1>
<dl>
${header('From', escapeHtml(message.from))}
${header('To', escapeHtml(message.to))}
${header('Subject', escapeHtml(message.subject))}
${header('Date', message.date ? time(message.date) : '')}
${header('List-Unsubscribe', linkify(message.listUnsubscribe ?? ''))}
${header('Received', time(message.receivedAt))}
</dl>
<h2>Text</h2>
<pre>${linkify(message.text)}</pre>
<h2>HTML</h2>
<p class="muted">Shown without scripts, inline styles or images (the page's security policy).</p>
${frame}`,
  );
}

export function notFoundPage(): string {
  return page(
    'No such message · Development mailbox · Murmur',
    `<h1 id="title">No such message</h1>
<p>The mailbox keeps the last messages only, in memory: this one is gone, or never was.</p>
<p><a href="${DEV_MAILBOX_PATH}">All messages</a></p>`,
  );
}
