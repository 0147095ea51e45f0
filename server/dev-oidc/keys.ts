// The development provider's secrets: an RS256 signing key (its JWKS) and the keys that sign its cookies. Kept in
// DATA_DIR so a restart keeps ID tokens and sign-ins in progress valid; generated in memory when there is no DATA_DIR.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface DevOidcSecrets {
  /** Private JWKs, as oidc-provider takes them. */
  jwks: { keys: Record<string, unknown>[] };
  cookieKeys: string[];
}

function generate(): DevOidcSecrets {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  // RFC 7638 thumbprint of the public part as the key id.
  const thumbprint = createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n }))
    .digest('base64url');
  return {
    jwks: { keys: [{ ...jwk, kid: thumbprint, alg: 'RS256', use: 'sig' }] },
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
}

function isSecrets(value: unknown): value is DevOidcSecrets {
  const candidate = value as Partial<DevOidcSecrets> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    Array.isArray(candidate.jwks?.keys) &&
    candidate.jwks.keys.length > 0 &&
    Array.isArray(candidate.cookieKeys) &&
    candidate.cookieKeys.length > 0
  );
}

export function loadDevOidcSecrets(dataDir: string | undefined): DevOidcSecrets {
  if (!dataDir) return generate();
  const file = join(dataDir, 'dev-oidc-keys.json');
  if (existsSync(file)) {
    const stored: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (isSecrets(stored)) return stored;
  }
  const secrets = generate();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}
