// Drill-down refinements as one search param, short enough to read and to paste:
//   refine=platform:x,reddit;!hashtag:coffee;date.day:2026-11-02T00%3A00%3A00%2B01%3A00
// Items are separated by ';', a leading '!' excludes, `field.bucket` carries a date's bucket, values are separated by
// ',' and each is percent-encoded (so ',', ';' and ':' inside a value never split it). Followers are `min-max` with
// either side left out; an hour of the week is `day-hour` (1-9: Mondays 09:00); authors are a profile id (digits) or
// '@handle'. Every decoded item is checked with the
// contract's own refinement schema; anything it refuses makes the whole param invalid (the page says so and drops it).
import * as z from 'zod/mini';
import { insightsBodySchema, type Refine } from '@contract/insights';

const refineListSchema = z.nonoptional(insightsBodySchema.shape.refine);

type Value = Refine['values'][number];

function encodeValue(refine: Refine, value: Value): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object') {
    if ('day' in value) return `${value.day}-${value.hour}`;
    return `${value.min ?? ''}-${value.max ?? ''}`;
  }
  const text = refine.field === 'author' && !value.startsWith('@') ? `@${value}` : value;
  return encodeURIComponent(text);
}

function decodeValue(field: string, text: string): unknown {
  if (field === 'followers') {
    const match = /^(\d*)-(\d*)$/.exec(text);
    if (!match) return text;
    return {
      ...(match[1] ? { min: Number(match[1]) } : {}),
      ...(match[2] ? { max: Number(match[2]) } : {}),
    };
  }
  if (field === 'hour_of_week') {
    const match = /^(\d)-(\d{1,2})$/.exec(text);
    return match ? { day: Number(match[1]), hour: Number(match[2]) } : text;
  }
  if (field === 'author' && /^\d+$/.test(text)) return Number(text);
  return decodeURIComponent(text);
}

/** The refinements as the param holds them; an empty list is no param at all. */
export function encodeRefines(refines: readonly Refine[]): string | undefined {
  if (!refines.length) return undefined;
  return refines
    .map((refine) => {
      const head = `${refine.exclude ? '!' : ''}${refine.field}${refine.field === 'date' ? `.${refine.bucket}` : ''}`;
      return `${head}:${refine.values.map((value) => encodeValue(refine, value)).join(',')}`;
    })
    .join(';');
}

/** The param's refinements, or null when any part of it is not a valid refinement. */
export function decodeRefines(param: string): Refine[] | null {
  try {
    const items = param.split(';').map((item) => {
      const colon = item.indexOf(':');
      if (colon < 0) throw new Error('no values');
      let head = item.slice(0, colon);
      const exclude = head.startsWith('!');
      if (exclude) head = head.slice(1);
      const [field = '', bucket] = head.split('.');
      const values = item
        .slice(colon + 1)
        .split(',')
        .map((text) => decodeValue(field, text));
      return { field, ...(bucket !== undefined ? { bucket } : {}), values, ...(exclude ? { exclude } : {}) };
    });
    const parsed = z.safeParse(refineListSchema, items);
    return parsed.success ? parsed.data : null;
  } catch {
    // decodeURIComponent refuses a broken escape.
    return null;
  }
}

/** Two refinements on the same field and bucket with the same values (whatever their order). */
export function sameRefine(a: Refine, b: Refine): boolean {
  return encodeRefines([{ ...a, exclude: false }]) === encodeRefines([{ ...b, exclude: false }]);
}
