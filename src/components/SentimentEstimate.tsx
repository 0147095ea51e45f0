// A post's estimated sentiment and why (docs/sentiment.md#explanations): "Sentiment (estimate): negative · 90 % sure"
// and the words that pushed it there with their weights ("useless −0.8, down −0.4, 😡 −0.3"), behind a "Why?" button
// on a card and listed on the post's page; "Not rated — too little text" for a post too short to tell. A server
// without explanations gives none: the label alone is shown, as before.
import { useId, useState } from 'react';
import type { SocialPost } from '@contract/social-posts';

type Explanation = NonNullable<SocialPost['sentiment_explanation']>;

const ESTIMATE_TITLE =
  'Estimated by a trained model (a word list for the languages it lacks); it can miss sarcasm and context';
const WHY_TITLE =
  'Each word’s push toward the label, in the model’s units: under a negative label, minus pushed toward negative';

/** A percentage a model gives: never 0 nor 100. */
const sure = (confidence: number) => `${Math.min(99, Math.max(1, Math.round(confidence * 100)))} % sure`;

/** −1.2 / +0.4, with a true minus sign. */
const signed = (weight: number) => `${weight < 0 ? '−' : '+'}${Math.abs(weight).toFixed(1)}`;

export function SentimentEstimate({ post, full }: { post: SocialPost; full: boolean }) {
  const explanation = post.sentiment_explanation;
  if (!explanation) {
    return (
      <span className="post-sentiment" title={ESTIMATE_TITLE}>
        Sentiment (estimate): {post.sentiment_label}
      </span>
    );
  }
  if (!explanation.rated) {
    return (
      <span
        className="post-sentiment unrated"
        title={`Fewer than 3 words or emoji: the model would only guess. Counted as ${post.sentiment_label} in the figures.`}
      >
        Sentiment: Not rated — too little text
      </span>
    );
  }
  return (
    <span className="post-sentiment" title={ESTIMATE_TITLE}>
      Sentiment (estimate): {post.sentiment_label}
      {explanation.confidence === null ? ' · word list' : ` · ${sure(explanation.confidence)}`}
      {explanation.signals.length === 0 ? null : full ? (
        <Reasons explanation={explanation} />
      ) : (
        <WhyDisclosure explanation={explanation} />
      )}
    </span>
  );
}

function Reasons({ explanation, id }: { explanation: Explanation; id?: string }) {
  return (
    <span className="sentiment-why" id={id} title={WHY_TITLE}>
      {' '}
      — why:{' '}
      {explanation.signals.map((signal, i) => (
        <span key={signal.text} className="sentiment-signal">
          <em>{signal.text}</em> {signed(signal.weight)}
          {i < explanation.signals.length - 1 ? ', ' : ''}
        </span>
      ))}
    </span>
  );
}

/** On a card: a button that shows and hides the reasons. */
function WhyDisclosure({ explanation }: { explanation: Explanation }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      {' '}
      <button
        type="button"
        className="link-button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
      >
        Why?
      </button>
      {open ? <Reasons explanation={explanation} id={id} /> : null}
    </>
  );
}
