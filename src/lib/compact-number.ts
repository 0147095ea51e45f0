// Compact numbers ("12.3K") in the reader's locale, with one format made on first use rather than when a module is
// evaluated: the first compact format a page makes costs about 20 ms of main thread (the locale's compact-notation
// data), which inside the evaluation of a dashboard's code was part of one long task on the way to its first screen.

let compact: Intl.NumberFormat | null = null;

export function formatCompactNumber(value: number): string {
  compact ??= new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
  return compact.format(value);
}

/** Makes the format in an idle moment ahead of its first use: a page that will show compact numbers soon. */
export function prepareCompactNumbers(): void {
  if (compact) return;
  const make = () => void formatCompactNumber(0);
  if (typeof requestIdleCallback === 'function') requestIdleCallback(make, { timeout: 2000 });
  else setTimeout(make, 0);
}
