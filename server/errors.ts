// Errors as values at the API boundary: a status, a stable machine-readable code and a sentence for people.
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const unauthorized = (message = 'Sign in again.') => new ApiError(401, 'unauthorized', message);
export const forbidden = (message = 'You do not have permission to do this.') =>
  new ApiError(403, 'forbidden', message);
