// A sign-in that cannot go on, with a sentence for the person and the invite it was carrying (for the way back).
export class SignInError extends Error {
  override name = 'SignInError';
  readonly inviteToken: string | null;

  constructor(message: string, options: { inviteToken?: string | null; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.inviteToken = options.inviteToken ?? null;
  }
}

/** What to tell the person when a sign-in fails: our own sentences as they are, anything else in general terms. */
export function signInErrorMessage(error: unknown): string {
  if (error instanceof SignInError) return error.message;
  return 'The sign-in could not be completed. Check your connection and try again.';
}
