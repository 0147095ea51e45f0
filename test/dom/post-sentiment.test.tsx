// A post's sentiment on its card and its page: how sure the model is and why (behind a keyboard-reachable "Why?" on a
// card, listed on the post's page), "not rated" for too little text, the team's correction instead of the model's
// reasons, and the label alone from a server that sends no explanation.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { socialPostSchema, type SocialPost } from '@contract/social-posts';
import { PostSentiment } from '@/components/PostSentiment';
import { socialPostFixture } from '@test/support/contract.fixtures';

const NEGATIVE: Partial<SocialPost> = {
  sentiment: -0.85,
  sentiment_label: 'negative',
  sentiment_explanation: {
    rated: true,
    confidence: 0.823,
    signals: [
      { text: 'useless', weight: -1.24 },
      { text: '😡', weight: -0.9 },
      { text: 'down', weight: -0.61 },
      { text: 'thanks', weight: 0.32 },
    ],
  },
};

afterEach(cleanup);

const show = (overrides: Partial<SocialPost>, full = false) => {
  const post = socialPostFixture(7, 'This update is useless, the app is down again 😡 thanks', overrides);
  return render(
    <p>
      <PostSentiment post={post} timeZone="UTC" full={full} />
    </p>,
  );
};

describe('a post’s sentiment', () => {
  it('on a card: the label and how sure, the reasons behind a keyboard-reachable button', async () => {
    const { container } = show(NEGATIVE);
    expect(container.textContent).toContain('Sentiment (estimate): negative · 82 % sure');
    expect(container.textContent).not.toContain('why:');
    const why = screen.getByRole('button', { name: 'Why?' });
    expect(why.getAttribute('aria-expanded')).toBe('false');
    await userEvent.tab();
    expect(document.activeElement).toBe(why);
    await userEvent.keyboard('{Enter}');
    expect(why.getAttribute('aria-expanded')).toBe('true');
    const reasons = document.getElementById(why.getAttribute('aria-controls')!)!;
    expect(reasons.textContent).toBe(' — why: useless −1.2, 😡 −0.9, down −0.6, thanks +0.3');
    await userEvent.keyboard('{Enter}');
    expect(container.textContent).not.toContain('why:');
  });

  it('on the post’s page: the reasons listed, no button', () => {
    const { container } = show(NEGATIVE, true);
    expect(screen.queryByRole('button', { name: 'Why?' })).toBeNull();
    expect(container.textContent).toContain(
      'negative · 82 % sure — why: useless −1.2, 😡 −0.9, down −0.6, thanks +0.3',
    );
  });

  it('says "not rated" for too little text rather than neutral', () => {
    const { container } = show({ sentiment_explanation: { rated: false, confidence: 0.55, signals: [] } });
    expect(container.textContent).toBe('Sentiment: Not rated — too little text');
    expect(screen.queryByRole('button', { name: 'Why?' })).toBeNull();
  });

  it('a corrected post says so, without the model’s reasons', () => {
    const { container } = show({
      ...NEGATIVE,
      sentiment: 1,
      sentiment_label: 'positive',
      sentiment_correction: {
        estimated_label: 'negative',
        estimated_sentiment: -0.85,
        corrected_by: 'Ana Owner',
        corrected_at: '2026-11-20T10:00:00.000Z',
      },
    });
    expect(container.textContent).toContain('Sentiment: positive · Corrected by your team (Ana Owner');
    expect(container.textContent).not.toContain('same text');
    expect(container.textContent).toContain('Ana Owner on');
    expect(container.textContent).not.toMatch(/sure|why/);
    expect(screen.queryByRole('button', { name: 'Why?' })).toBeNull();
  });

  it('a post with the same text as a corrected one says it inherits the correction', () => {
    const { container } = show({
      ...NEGATIVE,
      sentiment: 1,
      sentiment_label: 'positive',
      sentiment_correction: {
        estimated_label: 'negative',
        estimated_sentiment: -0.85,
        corrected_by: 'Ana Owner',
        corrected_at: '2026-11-20T10:00:00.000Z',
        inherited_from: 42,
      },
    });
    expect(container.textContent).toContain(
      'Sentiment: positive · Corrected by your team (same text as a corrected post) (Ana Owner on',
    );
    expect(container.textContent).not.toMatch(/sure|why/);
  });

  it('from the word list: no probability, still the words', async () => {
    show({
      sentiment_label: 'positive',
      sentiment_explanation: { rated: true, confidence: null, signals: [{ text: '最高', weight: 0.82 }] },
    });
    expect(screen.getByText(/Sentiment \(estimate\): positive · word list/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Why?' }));
    expect(screen.getByText('最高')).toBeTruthy();
  });

  it('without an explanation (an older server): the label alone, and the post still parses', () => {
    const post = socialPostFixture(8, 'The ferry is late');
    expect(socialPostSchema.safeParse(post).success).toBe(true);
    expect(socialPostSchema.parse({ ...post, ...NEGATIVE }).sentiment_explanation?.signals).toHaveLength(4);
    const { container } = show({});
    expect(container.textContent).toBe('Sentiment (estimate): neutral');
  });
});
