// Saving a file the page made or fetched (a CSV, a PNG, an invoice) under a name, through a temporary link.

/** Saves a file the page made (a CSV, a chart's PNG) under `filename`. */
export function saveFile(filename: string, content: Blob | string): void {
  const url = typeof content === 'string' && content.startsWith('data:') ? content : null;
  const href = url ?? URL.createObjectURL(typeof content === 'string' ? new Blob([content]) : content);
  const link = document.createElement('a');
  link.href = href;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  if (!url) setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
