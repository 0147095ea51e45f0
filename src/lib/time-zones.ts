// The time zones Settings › General offers, each with its offset from UTC now, and the search over them: a person
// types part of a name ("tokyo", "new york", "argentina salta") or of an offset ("+9", "+05:30", "utc-3").
import { listedTimeZones } from '@contract/time-zones';

export interface TimeZoneOption {
  zone: string;
  /** "UTC+09:00", "UTC−03:30", "UTC+00:00": the offset in effect at the instant the list was made. */
  offset: string;
  /** Lower-case words the search matches: the name's parts and both spellings of the offset. */
  words: string;
}

/** Minus sign (U+2212) on screen; the hyphen-minus is what people type, and the search takes both. */
const MINUS = '\u2212';

/** "UTC+09:00" and "UTC+9" for the zone's offset at the instant (one formatter: making them is the cost). */
function offsets(zone: string, at: Date): { long: string; short: string } {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(at)
      .find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  // Intl writes "GMT" for a zero offset and "GMT+09:00" otherwise.
  const long = name === 'GMT' ? 'UTC+00:00' : name.replace(/^GMT/, 'UTC');
  const short = long.replace(/([+-])0?(\d+):00$/, '$1$2').replace(/([+-])0(\d:)/, '$1$2');
  return { long, short };
}

/** The option of one zone (any zone Intl knows, listed or not: the workspace's current one may be an alias). */
export function timeZoneOption(zone: string, at = new Date()): TimeZoneOption {
  const { long, short } = offsets(zone, at);
  return {
    zone,
    offset: long.replace('-', MINUS),
    words: `${zone.replace(/[/_]/g, ' ')} ${long} ${short}`.toLowerCase(),
  };
}

/**
 * Zones ICU (so Chrome and Node) still lists under their old IANA names, with their current ones: the list offers
 * the current name, the one people look for, when the runtime takes it as that zone (the server does: it is an
 * alias of a listed zone). The old name stays searchable.
 */
const CURRENT_NAMES: Readonly<Record<string, string>> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
  'America/Catamarca': 'America/Argentina/Catamarca',
  'America/Coral_Harbour': 'America/Atikokan',
  'America/Cordoba': 'America/Argentina/Cordoba',
  'America/Godthab': 'America/Nuuk',
  'America/Indianapolis': 'America/Indiana/Indianapolis',
  'America/Jujuy': 'America/Argentina/Jujuy',
  'America/Louisville': 'America/Kentucky/Louisville',
  'America/Mendoza': 'America/Argentina/Mendoza',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

/** The name the list shows for a listed zone: its current one where the runtime knows it as this zone. */
function currentName(listed: string): string {
  const current = CURRENT_NAMES[listed];
  if (!current) return listed;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: current }).resolvedOptions().timeZone === listed
      ? current
      : listed;
  } catch {
    return listed;
  }
}

/** Every listed zone with its offset now, UTC first; the workspace's current zone added when the list lacks it. */
export function timeZoneOptions(current: string, at = new Date()): TimeZoneOption[] {
  const options = listedTimeZones().map((listed) => {
    const option = timeZoneOption(currentName(listed), at);
    return listed === option.zone
      ? option
      : { ...option, words: `${option.words} ${listed.replace(/[/_]/g, ' ').toLowerCase()}` };
  });
  return options.some((option) => option.zone === current)
    ? options
    : [timeZoneOption(current, at), ...options];
}

/** The options whose words contain every word of the text (any order); all of them for an empty text. */
export function searchTimeZones(options: readonly TimeZoneOption[], text: string): TimeZoneOption[] {
  const words = text.toLowerCase().replaceAll(MINUS, '-').replace(/[/_]/g, ' ').split(/\s+/).filter(Boolean);
  if (!words.length) return [...options];
  return options.filter((option) => words.every((word) => option.words.includes(word)));
}
