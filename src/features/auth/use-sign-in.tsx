// The login screens' sign-in controls, kept light and free of SDKs: the buttons' behaviour and the status line. Which
// sign-in each button performs is ./sign-in-method; the sign-in code itself (./sign-in) loads only when a button is
// pressed.
import { useEffect, useState } from 'react';
import { useRouter } from '@tanstack/react-router';
import type { VendorType } from '@contract/auth';
import { useApp } from '@/components/use-app';
import { signInErrorMessage } from './sign-in-error';
import { vendorLabel } from './sign-in-method';

export interface SignInState {
  /** The vendor whose sign-in is under way. */
  busy: VendorType | null;
  error: string | null;
}

/**
 * After signing in: the page the person opened while signed out, when they may still see it; otherwise /login decides
 * where they go (the invite's workspace, last-used, first, creation). The code is in ./return-to, loaded then.
 */
export function useContinueAfterSignIn() {
  const router = useRouter();
  const app = useApp();
  return (inviteToken: string | null) =>
    import('./return-to').then(
      ({ continueAfterSignIn }) => continueAfterSignIn({ ...app, router }, inviteToken),
      // Signed in all the same: /login decides.
      () =>
        router.navigate({ to: '/login', search: inviteToken ? { token: inviteToken } : {}, replace: true }),
    );
}

export function useSignIn(inviteToken: string | null) {
  const { api, session, config } = useApp();
  const continueAfterSignIn = useContinueAfterSignIn();
  const [state, setState] = useState<SignInState>({ busy: null, error: null });

  // Coming back with the browser's Back button from the provider restores this page as it was left: busy.
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) setState({ busy: null, error: null });
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, []);

  const start = async (vendor: VendorType) => {
    setState({ busy: vendor, error: null });
    try {
      const { startSignIn } = await import('./sign-in');
      const outcome = await startSignIn({ api, session, config }, vendor, inviteToken);
      // While redirecting the page stays busy until the browser leaves it.
      if (outcome.kind === 'signedIn') await continueAfterSignIn(outcome.inviteToken);
    } catch (error) {
      setState({ busy: null, error: signInErrorMessage(error) });
    }
  };

  return { ...state, start: (vendor: VendorType) => void start(vendor) };
}

/** Announces a sign-in under way politely and a failed one at once. */
export function SignInStatus({ busy, error }: SignInState) {
  if (!busy && !error) return null;
  return (
    <>
      {busy ? (
        <p className="muted small" role="status">
          Signing in with {vendorLabel(busy)}…
        </p>
      ) : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}
