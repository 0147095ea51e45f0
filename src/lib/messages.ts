// The spec's exact user-facing texts, in one place so the UI and the tests share them.
export const messages = {
  invalidInviteToken: 'Invalid invite token',
  loginRequired: 'Login required',
  noTokensFound: 'No tokens found',
  refreshTokenExpired: 'Refresh token expired',
  maxRefreshRetries: 'Max token refresh retries exceeded',
  failedToFetch: 'Failed to fetch',
  unexpectedErrorTitle: 'Unexpected Error',
  unexpectedErrorDescription:
    'We encountered an unexpected error. Please try again or navigate to a different page. If the problem persists, please contact support.',
  tryAgain: 'Try Again',
  technicalDetails: 'Technical Details',
  fallbackErrorTitle: 'Something went wrong',
  notFound: 'Not Found',
} as const;
