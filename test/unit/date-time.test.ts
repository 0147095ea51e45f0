// The product's one way of writing days and instants: the same shape on every screen, in the zone the caller passes,
// and the zone named wherever a time is shown.
import { describe, expect, it } from 'vitest';
import {
  formatDate,
  formatDateTime,
  formatDateTimeRange,
  formatShortDateTime,
  formatShortDay,
  formatTime,
} from '@/lib/date-time';

const AT = '2026-11-03T13:05:09Z';
const SECONDS = Date.parse(AT) / 1000;

describe('dates and times', () => {
  it('write a day as "3 Nov 2026" in the given zone, from an ISO string, unix seconds or a Date', () => {
    expect(formatDate(AT, 'UTC')).toBe('3 Nov 2026');
    expect(formatDate(SECONDS, 'UTC')).toBe('3 Nov 2026');
    expect(formatDate(new Date(AT), 'UTC')).toBe('3 Nov 2026');
    // The same instant is already the 4th in Seoul.
    expect(formatDate('2026-11-03T20:00:00Z', 'Asia/Seoul')).toBe('4 Nov 2026');
  });

  it('name the zone with every time shown', () => {
    expect(formatDateTime(AT, 'UTC')).toBe('3 Nov 2026, 13:05 UTC');
    expect(formatDateTime(SECONDS, 'Europe/Berlin')).toBe('3 Nov 2026, 14:05 CET');
    expect(formatDateTime(AT, 'America/New_York')).toBe('3 Nov 2026, 08:05 GMT-5');
    expect(formatTime(AT, 'Europe/Berlin')).toBe('14:05:09 CET');
  });

  it('write a range with both ends in the zone, each with its own offset across a change of summer time', () => {
    expect(formatDateTimeRange({ from: '2026-11-01T13:00:00Z', to: '2026-11-22T13:00:00Z' }, 'UTC')).toBe(
      '1 Nov 2026, 13:00 UTC – 22 Nov 2026, 13:00 UTC',
    );
    expect(
      formatDateTimeRange({ from: '2026-03-01T13:00:00Z', to: '2026-04-22T13:00:00Z' }, 'Europe/Berlin'),
    ).toBe('1 Mar 2026, 14:00 CET – 22 Apr 2026, 15:00 CEST');
  });

  it('leave the year out where it is plain from around it, and still name the zone with a time', () => {
    expect(formatShortDay(AT, 'UTC')).toBe('3 Nov');
    expect(formatShortDay('2026-11-03T23:30:00Z', 'Asia/Seoul', { weekday: true })).toBe('Wed 4 Nov');
    expect(formatShortDateTime(AT, 'Europe/Berlin')).toBe('3 Nov, 14:05 CET');
  });

  it('write a calendar day ("YYYY-MM-DD") as the day it is, whatever the zone', () => {
    expect(formatShortDay('2026-11-05', 'America/Los_Angeles')).toBe('5 Nov');
    expect(formatShortDay('2026-11-05', 'Pacific/Kiritimati', { weekday: true })).toBe('Thu 5 Nov');
  });

  it('shows a missing instant as a dash', () => {
    expect(formatDateTime(null, 'UTC')).toBe('—');
  });
});
