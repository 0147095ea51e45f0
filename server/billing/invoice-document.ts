// An invoice as a standalone, printable HTML document (downloaded with Content-Disposition): who billed whom, when,
// for what and how much, in the workspace's time zone. No scripts, no external resources.
import type { invoices } from '@server/db/billing-schema';
import { escapeHtml, htmlPage, pageStyle } from '@server/html-page';
import { usableTimeZone } from '@contract/zoned-time';

const STYLE = pageStyle(`
  body { font-family: system-ui, sans-serif; color: #1c1b29; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
  h1 { margin: 0 0 .25rem; } table { width: 100%; border-collapse: collapse; margin-top: 1.5rem; }
  th, td { text-align: left; padding: .5rem; border-bottom: 1px solid #dedce8; } td.amount, th.amount { text-align: right; }
  .parties { display: flex; justify-content: space-between; gap: 2rem; margin-top: 1.5rem; }
  .status { display: inline-block; padding: .1rem .5rem; border-radius: 4px; background: #e7f6ec; color: #14532d; }
`);

const formatMoney = (amount: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(
    amount / 100,
  );

interface BilledTo {
  email?: string;
  name?: string;
  address_line1?: string;
  address_line2?: string;
  postal_code?: string;
  city?: string;
  country?: string;
  card?: { brand: string; last4: string } | null;
}

export function invoiceDocument(
  invoice: typeof invoices.$inferSelect,
  workspace: { name: string; timeZone: string },
): string {
  const zone = usableTimeZone(workspace.timeZone);
  const date = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: zone }).format(
    invoice.issuedAt,
  );
  const to = invoice.billedTo as BilledTo;
  const address = [
    to.name,
    to.address_line1,
    to.address_line2,
    [to.postal_code, to.city].filter(Boolean).join(' '),
    to.country,
    to.email,
  ]
    .filter((line): line is string => Boolean(line))
    .map(escapeHtml);
  const total = formatMoney(invoice.amount, invoice.currency);
  return htmlPage({
    title: `Invoice ${invoice.number}`,
    style: STYLE,
    body: `<h1>Invoice ${escapeHtml(invoice.number)}</h1>
<p>Issued ${escapeHtml(date)} (${escapeHtml(zone)}) · <span class="status">${escapeHtml(invoice.status)}</span></p>
<div class="parties">
  <div><strong>From</strong><br>Murmur<br>Social-media insights for teams</div>
  <div><strong>Billed to</strong><br>${address.length > 0 ? address.join('<br>') : escapeHtml(workspace.name)}<br>
  Workspace: ${escapeHtml(workspace.name)}</div>
</div>
<table>
  <thead><tr><th>Description</th><th class="amount">Amount</th></tr></thead>
  <tbody><tr><td>${escapeHtml(invoice.description)}</td><td class="amount">${escapeHtml(total)}</td></tr></tbody>
  <tfoot><tr><th>Total (${escapeHtml(invoice.currency.toUpperCase())})</th><th class="amount">${escapeHtml(total)}</th></tr></tfoot>
</table>
<p>${to.card ? `Paid with ${escapeHtml(to.card.brand)} ending in ${escapeHtml(to.card.last4)}.` : 'Paid by card.'}</p>`,
  });
}
