// How often sentiment agrees with the workspace's corrections (issue 53, item 6): the share of the posts the team
// corrected that the model labels the same way, and that share once the corrections of other posts with the same text
// are applied (each corrected post judged without its own correction: what a correction carries to posts nobody
// corrected). Any member reads it; it changes with every correction (src/api/sentiment.ts refreshes it).
import { useQuery } from '@tanstack/react-query';
import type { SentimentAgreementResponse } from '@contract/sentiment-corrections';
import { apiProblem } from '@/api/errors';
import { sentimentAgreementQuery } from '@/api/sentiment';
import { useApp } from '@/components/use-app';

const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)} %`;

export function SentimentAgreement({ workspaceId }: { workspaceId: string }) {
  const { api } = useApp();
  const agreement = useQuery(sentimentAgreementQuery(api, workspaceId));
  return (
    <section className="settings-section separate" aria-labelledby="sentiment-agreement-title">
      <h2 id="sentiment-agreement-title">Sentiment</h2>
      {agreement.isPending ? (
        <p className="muted">Loading the agreement with your team's corrections…</p>
      ) : agreement.isError ? (
        <p className="form-error" role="alert">
          {apiProblem(agreement.error).message}
        </p>
      ) : (
        <AgreementLines agreement={agreement.data} />
      )}
    </section>
  );
}

function AgreementLines({ agreement }: { agreement: SentimentAgreementResponse }) {
  const { corrected, model_agreeing: model, adapted_agreeing: adapted } = agreement;
  if (!corrected) {
    return (
      <p>
        Agreement with your team's corrections: none yet.{' '}
        <span className="muted small">Correct a post's sentiment on its card to measure it.</span>
      </p>
    );
  }
  return (
    <>
      <p>
        Agreement with your team's corrections: {percent(model, corrected)} of{' '}
        {corrected.toLocaleString('en-US')}
      </p>
      <p className="muted small">
        The share of the posts your team corrected that the sentiment model labels the same way. With the
        corrections of posts with the same text applied (each corrected post judged without its own):{' '}
        {percent(adapted, corrected)}. A post with the same text as a corrected one counts with its
        correction.
      </p>
    </>
  );
}
