// Route-schema pieces every domain's routes repeat: the bearer requirement and documented error bodies.
import { errorResponseSchema } from '@contract/errors';

export const bearer = [{ bearer: [] }];

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 429 | 503;

/** Error responses for the OpenAPI document; the bodies come from the app's error handler. */
export function errorResponses(...statuses: ErrorStatus[]) {
  return Object.fromEntries([401, ...statuses].map((status) => [status, errorResponseSchema])) as Record<
    ErrorStatus,
    typeof errorResponseSchema
  >;
}
