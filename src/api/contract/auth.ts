// Request and response bodies of the auth calls (spec §7), shared by the server's routes and the SPA.
import * as z from 'zod/mini';

export const vendorTypeSchema = z.enum(['google', 'microsoft']);
export type VendorType = z.infer<typeof vendorTypeSchema>;

export const nonceResponseSchema = z.object({
  /** Goes into the vendor's sign-in request; the ID token must carry it back as its `nonce` claim. */
  nonce: z.string(),
});

export const loginRequestSchema = z.object({
  /** The vendor's ID token (a JWT). */
  oauth_token: z.string().check(z.minLength(1), z.maxLength(16_384)),
  vendor_type: vendorTypeSchema,
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

/** The answer to both login and refresh: refresh tokens rotate, so a refresh hands back a new one too. */
export const tokenPairSchema = z.object({ access_token: z.string(), refresh_token: z.string() });
export type TokenPair = z.infer<typeof tokenPairSchema>;

export const apiErrorSchema = z.object({
  error: z.string(),
  message: z.string(),
  fields: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
});
