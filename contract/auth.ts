// Request and response bodies of the auth calls (spec §7), shared by the server's routes and the SPA.
import * as z from 'zod/mini';

const vendorTypeSchema = z.enum(['google', 'microsoft']);
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

/** The answer to login (spec §7). */
export const tokenPairSchema = z.object({ access_token: z.string(), refresh_token: z.string() });

/**
 * The answer to refresh. The spec's refresh response is `{access_token}`; refresh tokens rotate here, so this server
 * always adds the new `refresh_token`, and the SPA keeps the old one when a response lacks it.
 */
export const refreshResponseSchema = z.object({
  access_token: z.string(),
  refresh_token: z.optional(z.string()),
});
