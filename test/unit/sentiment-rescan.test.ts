// The sentiment rescan's sentences (contract/sentiment-rescan.ts): the scraping area's line and the overview's note.
import { describe, expect, it } from 'vitest';
import { rescanLine, rescanNote, type SentimentRescan } from '@contract/sentiment-rescan';

const rescan = (over: Partial<SentimentRescan> = {}): SentimentRescan => ({
  model: 'model-abc',
  rescanned: 430_000,
  total: 1_000_000,
  percent: 43,
  seconds_left: 240,
  models: { 'model-abc': 430_000, unknown: 570_000 },
  started_at: '2026-11-26T18:00:00.000Z',
  finished_at: null,
  ...over,
});

describe('the sentiment rescan’s sentences', () => {
  it('says how far it is and the time left', () => {
    expect(rescanLine(rescan())).toBe(
      'Rescanning sentiment with model model-abc: 43 % (430,000 of 1,000,000), about 4 minutes left',
    );
    expect(rescanLine(rescan({ seconds_left: 61 }))).toMatch(/, about 1 minute left$/);
    expect(rescanLine(rescan({ seconds_left: 20 }))).toMatch(/, less than a minute left$/);
    expect(rescanLine(rescan({ seconds_left: 3 * 3600 }))).toMatch(/, about 3 hours left$/);
    expect(rescanLine(rescan({ seconds_left: null }))).toBe(
      'Rescanning sentiment with model model-abc: 43 % (430,000 of 1,000,000)',
    );
    expect(
      rescanLine(rescan({ rescanned: 1_000_000, percent: 100, finished_at: '2026-11-26T18:10:00.000Z' })),
    ).toBe('Sentiment: every post scored by model model-abc (1,000,000 rescanned).');
  });

  it('notes on the sentiment panel how many models counted it', () => {
    expect(rescanNote(rescan())).toBe('Counted by two models until the rescan ends: 43 % rescanned');
    expect(rescanNote(rescan({ models: { a: 1, b: 2, c: 3 } }))).toBe(
      'Counted by three models until the rescan ends: 43 % rescanned',
    );
    // One model: the rescan rates the posts stored before ratings were recorded.
    expect(rescanNote(rescan({ models: { 'model-abc': 1_000_000 } }))).toBe(
      'Some posts too short to rate may count as rated until the rescan ends: 43 % rescanned',
    );
  });
});
