import { useRouter, type ErrorComponentProps } from '@tanstack/react-router';
import { useLayoutEffect } from 'react';
import { apiProblem } from '@/api/errors';
import { removePrerender } from '@/lib/prerender';
import { FormError } from './Field';

/**
 * A page whose data could not be loaded: the server's sentence and a way to try again, inside the frame the page
 * belongs to (its navigation stays usable). Unexpected errors elsewhere still reach the spec's error screen.
 */
export function RouteError({ error, reset }: ErrorComponentProps) {
  const router = useRouter();
  // A dashboard's shell (src/lib/prerender.ts) must not stay over the error.
  useLayoutEffect(removePrerender, []);
  const retry = () => {
    reset();
    void router.invalidate();
  };
  return (
    <div className="section-error" role="alert">
      <FormError message={`Could not load this page. ${apiProblem(error).message}`} />
      <button type="button" className="button" onClick={retry}>
        Try again
      </button>
    </div>
  );
}
