// The development provider's pages, rendered on the server: no scripts (the CSP allows none inline), every control a
// native button or labelled field, so the sign-in works with a keyboard and a screen reader.
import { DEV_OIDC_PATH } from '@contract/dev-oidc';
import { escapeHtml, htmlPage, pageStyle } from '@server/html-page';
import { DEMO_ACCOUNTS } from './accounts';

const STYLE = pageStyle(`
  :root { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1c1b29; background: #f7f7fb;
    line-height: 1.5; }
  * { box-sizing: border-box; }
  body { margin: 0; }
  main { max-width: 34rem; margin: 2rem auto; padding: 2rem; background: #fff; border: 1px solid #dedce8;
    border-radius: 12px; }
  h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
  h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
  p { margin: .25rem 0; }
  .muted { color: #5d5b73; }
  ul { list-style: none; padding: 0; margin: 0; display: grid; gap: .5rem; }
  button { font: inherit; cursor: pointer; border-radius: 8px; border: 1px solid #dedce8; background: #fff;
    color: inherit; padding: .5rem 1rem; }
  button:hover { border-color: #4338ca; }
  .account { width: 100%; text-align: left; display: flex; flex-direction: column; }
  .account span { color: #5d5b73; font-size: .875rem; }
  .primary { background: #4338ca; border-color: #4338ca; color: #fff; }
  label { display: block; font-weight: 600; margin-top: .75rem; }
  input { font: inherit; width: 100%; padding: .5rem; border: 1px solid #8c8a9e; border-radius: 8px; }
  .actions { margin-top: 1rem; display: flex; gap: .5rem; }
  .error { color: #b42318; font-weight: 600; }
  :focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
`);

/** The one inline stylesheet of every page here, as a CSP source: the policy allows it and no other inline style. */
export const PAGE_STYLE_SOURCE = STYLE.source;

const page = (title: string, body: string) =>
  htmlPage({ title, style: STYLE, body: `<main aria-labelledby="title">\n${body}\n</main>` });

export interface NewPersonForm {
  given_name: string;
  family_name: string;
  email: string;
}

export interface InteractionPageOptions {
  uid: string;
  /** Which vendor the provider stands in for in this sign-in, e.g. "Google". */
  vendorName: string;
  form?: NewPersonForm;
  /** A problem with the submitted form, shown above it. */
  error?: string;
}

export function interactionPage({ uid, vendorName, form, error }: InteractionPageOptions): string {
  const action = `${DEV_OIDC_PATH}/interaction/${encodeURIComponent(uid)}`;
  const accounts = DEMO_ACCOUNTS.map(
    (
      account,
    ) => `<li><button type="submit" class="account" name="account" value="${escapeHtml(account.email)}">
      ${escapeHtml(`${account.firstName} ${account.lastName}`)}
      <span>${escapeHtml(account.email)} · ${escapeHtml(account.role)}</span>
    </button></li>`,
  ).join('\n');
  const value = (field: keyof NewPersonForm) => escapeHtml(form?.[field] ?? '');
  const invalid = error ? ' aria-invalid="true" aria-describedby="form-error"' : '';
  return page(
    `Sign in (development, as ${vendorName}) · Murmur`,
    `<h1 id="title">Sign in to Murmur</h1>
<p class="muted">Development sign-in standing in for ${escapeHtml(vendorName)}. It exists only in local and development
deployments; nobody needs a password here.</p>
<section aria-labelledby="demo-title">
<h2 id="demo-title">Demo accounts</h2>
<form method="post" action="${action}/login">
<ul>
${accounts}
</ul>
</form>
</section>
<section aria-labelledby="new-title">
<h2 id="new-title">Sign in as a new person</h2>
${error ? `<p id="form-error" class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${action}/login">
<label for="given_name">First name</label>
<input id="given_name" name="given_name" autocomplete="given-name" maxlength="100" value="${value('given_name')}">
<label for="family_name">Last name</label>
<input id="family_name" name="family_name" autocomplete="family-name" maxlength="100" value="${value('family_name')}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${value('email')}"${invalid}>
<div class="actions"><button type="submit" class="primary">Sign in as this person</button></div>
</form>
</section>
<form method="post" action="${action}/abort" class="actions">
<button type="submit">Cancel and return to Murmur</button>
</form>`,
  );
}

export function errorPage(code: string, description: string): string {
  return page(
    'Sign-in problem · Murmur',
    `<h1 id="title">This sign-in cannot go on</h1>
<p role="alert">${escapeHtml(description)}</p>
<p class="muted">Code: ${escapeHtml(code)}. Go back to Murmur and start the sign-in again.</p>`,
  );
}
