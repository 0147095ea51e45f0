// The access-token signing key: from config, or generated once and kept in DATA_DIR for the embedded default.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function loadSigningKey(configured: string | undefined, dataDir: string): Uint8Array {
  if (configured) return Buffer.from(configured, 'base64url');
  const file = join(dataDir, 'signing-key');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
}
