// The one shell of the pages the server renders itself (the development sign-in, the built-in payment provider's
// hosted pages, invoices): HTML escaping, the document around a body, and its one inline stylesheet's CSP source.
// No scripts: the CSP allows none inline.
import { createHash } from 'node:crypto';

export const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  );

export interface PageStyle {
  css: string;
  /** The stylesheet as a CSP source: the policy allows it and no other inline style. */
  source: string;
}

export const pageStyle = (css: string): PageStyle => ({
  css,
  source: `'sha256-${createHash('sha256').update(css).digest('base64')}'`,
});

/** A whole document: `body` is HTML already escaped where it holds values. */
export function htmlPage({ title, style, body }: { title: string; style: PageStyle; body: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${style.css}</style>
</head>
<body>
${body}
</body>
</html>`;
}
