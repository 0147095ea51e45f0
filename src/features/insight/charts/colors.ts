// The charts' colours: the app's palette (styles.css), chosen to stay apart for colour-blind readers; sentiment always
// has the same three (and "not rated" its own). Apart from Chart.js (./chart-js.ts) so that a page can build its charts' configurations without
// loading Chart.js.
export const COLORS = {
  primary: '#4338ca',
  spike: '#b42318',
  positive: '#15803d',
  neutral: '#8a8799',
  negative: '#c2410c',
  /** "Not rated" (too little text): lighter than neutral, as it is no reading at all. */
  not_rated: '#d4d2dd',
  series: ['#4338ca', '#0e7490', '#b45309', '#7c3aed', '#be185d', '#15803d'],
} as const;
