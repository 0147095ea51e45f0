// A bar's label cut to the axis's width, counted as it is drawn: by grapheme, CJK and emoji two columns wide.
import { describe, expect, it } from 'vitest';
import { fitLabel, LABEL_COLUMNS } from '@/features/insight/charts/bar-labels';

describe('fitLabel', () => {
  it('keeps a label that fits, whole', () => {
    expect(fitLabel('#cloudnestdown')).toBe('#cloudnestdown');
    expect(fitLabel('x'.repeat(LABEL_COLUMNS))).toBe('x'.repeat(LABEL_COLUMNS));
  });

  it('cuts a long label with an ellipsis, within the width', () => {
    expect(fitLabel('#cloudnestoutagestillnotfixed', 12)).toBe('#cloudnesto…');
    expect(fitLabel('x'.repeat(LABEL_COLUMNS + 1))).toBe(`${'x'.repeat(LABEL_COLUMNS - 1)}…`);
  });

  it('counts Chinese, Japanese and Korean characters as two columns', () => {
    expect(fitLabel('#クラウドネスト障害', 12)).toBe('#クラウドネ…');
    expect(fitLabel('#서비스장애', 12)).toBe('#서비스장애');
    expect(fitLabel('#서비스장애발생', 12)).toBe('#서비스장애…');
  });

  it('never splits a grapheme: an emoji with its modifier, a letter with its accent', () => {
    expect(fitLabel('👍🏽👍🏽👍🏽👍🏽', 6)).toBe('👍🏽👍🏽…');
    expect(fitLabel('cafe\u0301cafe\u0301', 6)).toBe('cafe\u0301c…');
  });

  it('does not end the cut on a space', () => {
    expect(fitLabel('very long words here', 6)).toBe('very…');
  });
});
