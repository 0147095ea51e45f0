// The built-in provider's hosted pages, rendered on the server: the card form, the confirmation step some cards ask
// for, and a message page. No scripts (the CSP allows none); native, labelled controls only.
import { escapeHtml, htmlPage, pageStyle } from '@server/html-page';
import { TEST_CARDS } from './cards';

const STYLE = pageStyle(`
  :root { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1c1b29; background: #eef0f6;
    line-height: 1.5; }
  * { box-sizing: border-box; }
  body { margin: 0; }
  .badge { background: #fff4d6; color: #6b4e00; text-align: center; padding: .4rem; font-size: .875rem; margin: 0; }
  main { max-width: 30rem; margin: 2rem auto; padding: 2rem; background: #fff; border: 1px solid #d9dbe6;
    border-radius: 12px; }
  h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
  h2 { font-size: 1rem; margin: 1.5rem 0 .5rem; }
  p { margin: .25rem 0; }
  .merchant { color: #4a4860; font-weight: 600; margin-bottom: 1rem; }
  .amount { font-size: 2rem; font-weight: 700; margin: .25rem 0; }
  .muted { color: #5d5b73; font-size: .9rem; }
  label { display: block; font-weight: 600; margin-top: .75rem; }
  input { font: inherit; width: 100%; padding: .55rem; border: 1px solid #8c8a9e; border-radius: 8px; }
  .row { display: grid; grid-template-columns: 1fr 1fr; gap: .75rem; }
  button, .link-button { font: inherit; cursor: pointer; border-radius: 8px; border: 1px solid #b9b7c9; background: #fff;
    color: inherit; padding: .6rem 1rem; text-decoration: none; display: inline-block; }
  .primary { background: #0f5fd6; border-color: #0f5fd6; color: #fff; width: 100%; margin-top: 1.25rem; }
  .actions { display: flex; gap: .5rem; margin-top: 1rem; flex-wrap: wrap; }
  .error { color: #b42318; font-weight: 600; border: 1px solid #f1b5ae; background: #fff4f2; padding: .5rem .75rem;
    border-radius: 8px; margin-top: 1rem; }
  table { width: 100%; border-collapse: collapse; font-size: .875rem; }
  th, td { text-align: left; padding: .3rem .25rem; border-bottom: 1px solid #ebeaf2; }
  code { font-size: .85rem; white-space: nowrap; }
  :focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
`);

/** The one inline stylesheet of every page here, as a CSP source. */
export const PAGE_STYLE_SOURCE = STYLE.source;

const page = (title: string, body: string) =>
  htmlPage({
    title,
    style: STYLE,
    body: `<p class="badge" role="note">Test mode: the built-in payment provider. No real card is charged.</p>
<main aria-labelledby="title">
${body}
</main>`,
  });

const formatMoney = (amount: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(
    amount / 100,
  );

export interface CheckoutPageOptions {
  action: string;
  amount: number;
  currency: string;
  description: string;
  email: string | null;
  cancelUrl: string;
  error?: string;
  form?: { name: string; expiry: string };
}

export function checkoutPage(o: CheckoutPageOptions): string {
  const price = formatMoney(o.amount, o.currency);
  const cards = TEST_CARDS.map(
    (card) =>
      `<tr><td><code>${card.number.replace(/(\d{4})(?=\d)/g, '$1 ')}</code></td><td>${escapeHtml(card.label)}</td></tr>`,
  ).join('');
  return page(
    `Pay ${price} to Murmur`,
    `<p class="merchant">Murmur</p>
<h1 id="title">Pay with card</h1>
<p class="amount">${escapeHtml(price)}</p>
<p class="muted">${escapeHtml(o.description)}</p>
${o.email ? `<p class="muted">Receipt to ${escapeHtml(o.email)}</p>` : ''}
${o.error ? `<p class="error" role="alert" id="card-error">${escapeHtml(o.error)}</p>` : ''}
<form method="post" action="${escapeHtml(o.action)}" novalidate>
  <label for="number">Card number</label>
  <input id="number" name="number" inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234"
    required${o.error ? ' aria-describedby="card-error"' : ''}>
  <div class="row">
    <div><label for="expiry">Expiry (MM / YY)</label>
    <input id="expiry" name="expiry" autocomplete="cc-exp" placeholder="MM / YY" required
      value="${escapeHtml(o.form?.expiry ?? '')}"></div>
    <div><label for="cvc">Security code (CVC)</label>
    <input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" required></div>
  </div>
  <label for="name">Name on card</label>
  <input id="name" name="name" autocomplete="cc-name" required value="${escapeHtml(o.form?.name ?? '')}">
  <button class="primary" type="submit">Pay ${escapeHtml(price)}</button>
</form>
<div class="actions"><a class="link-button" href="${escapeHtml(o.cancelUrl)}">Cancel and go back</a></div>
<h2>Test cards</h2>
<p class="muted">Any future expiry date, any three-digit code and any name.</p>
<table><thead><tr><th scope="col">Number</th><th scope="col">Behaviour</th></tr></thead><tbody>${cards}</tbody></table>`,
  );
}

export function authenticatePage(o: {
  action: string;
  amount: number;
  currency: string;
  last4: string | null;
}): string {
  const price = formatMoney(o.amount, o.currency);
  return page(
    'Confirm your payment',
    `<p class="merchant">Your bank</p>
<h1 id="title">Confirm your payment</h1>
<p>Your bank asks you to confirm a payment of <strong>${escapeHtml(price)}</strong> to Murmur
${o.last4 ? ` with the card ending in ${escapeHtml(o.last4)}` : ''}.</p>
<p class="muted">In test mode you choose what the bank answers.</p>
<form method="post" action="${escapeHtml(o.action)}" class="actions">
  <button class="primary" type="submit" name="outcome" value="complete">Complete authentication</button>
  <button type="submit" name="outcome" value="fail">Fail authentication</button>
</form>`,
  );
}

export function messagePage(title: string, message: string, link?: { href: string; label: string }): string {
  return page(
    title,
    `<h1 id="title">${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>
${link ? `<div class="actions"><a class="link-button" href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></div>` : ''}`,
  );
}
