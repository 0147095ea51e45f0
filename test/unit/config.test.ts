import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '@/config';
import { installValidationMessages } from '@/lib/validation-messages';

const valid = {
  VITE_APP_ENV: 'local',
  VITE_API_BASE_URL: 'http://localhost:8787/api/',
  VITE_SOCIAL_API_BASE_URL: 'http://localhost:8787/social/',
  VITE_PAYMENT_SERVER_URL: 'http://localhost:8787/payments/',
  VITE_SENTRY_DSN: '',
};

beforeAll(() => installValidationMessages());

describe('build-time configuration (spec §5)', () => {
  it('accepts a valid configuration and fills defaults for optional strings', () => {
    const result = parseConfig(valid);
    expect(result.ok && result.config.VITE_INTERNAL_WORKSPACE_ID).toBe('');
  });

  it('names every bad key with the validation message', () => {
    const result = parseConfig({
      ...valid,
      VITE_APP_ENV: 'staging',
      VITE_API_BASE_URL: 'not a url',
      VITE_SENTRY_DSN: 'nope',
      VITE_PAYMENT_SERVER_URL: undefined,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const byKey = Object.fromEntries(result.problems.map((p) => [p.key, p.message]));
    expect(byKey.VITE_APP_ENV).toBe(
      "Invalid enum value. Expected 'local' | 'dev' | 'qa' | 'prod', received 'staging'",
    );
    expect(byKey.VITE_API_BASE_URL).toBe('Invalid url');
    expect(byKey.VITE_PAYMENT_SERVER_URL).toBe('Required');
    expect(byKey.VITE_SENTRY_DSN).toBeDefined();
  });

  it('accepts every environment of the spec', () => {
    for (const env of ['local', 'dev', 'qa', 'prod'])
      expect(parseConfig({ ...valid, VITE_APP_ENV: env }).ok).toBe(true);
  });
});
