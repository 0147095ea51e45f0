import type { ErrorComponentProps } from '@tanstack/react-router';
import { useLayoutEffect } from 'react';
import { removePrerender } from '@/lib/prerender';
import { messages } from '@/lib/messages';

export interface ErrorViewProps {
  title?: string;
  description?: string;
  error: unknown;
}

/** The generic error screen (spec §2): a reload button and the error message under 'Technical Details'. */
export function ErrorView({ title, description, error }: ErrorViewProps) {
  const detail = error instanceof Error ? error.message : String(error);
  // An error on /login must not stay hidden under the prerendered sign-in screen.
  useLayoutEffect(removePrerender, []);
  return (
    <main className="error-screen" role="alert" aria-labelledby="error-title">
      <h1 id="error-title">{title ?? messages.fallbackErrorTitle}</h1>
      {description ? <p>{description}</p> : null}
      <button type="button" className="button primary" onClick={() => window.location.reload()}>
        {messages.tryAgain}
      </button>
      <details className="technical-details">
        <summary>{messages.technicalDetails}</summary>
        <pre>{detail}</pre>
      </details>
    </main>
  );
}

/** The route error component: unexpected route errors show the spec's title and description. */
export function ErrorScreen({ error }: ErrorComponentProps) {
  return (
    <ErrorView
      title={messages.unexpectedErrorTitle}
      description={messages.unexpectedErrorDescription}
      error={error}
    />
  );
}
