// The e-mail settings (server/config.ts): SMTP_URL and MAIL_FROM validated without repeating a secret, and DEV_MAILBOX
// resolved from APP_ENV and SMTP_URL as DEV_OIDC is from APP_ENV, refused in prod.
import { describe, expect, it } from 'vitest';
import { loadServerConfig } from '@server/config';

/** The error loadServerConfig throws for this environment, or '' when it takes it. */
function refusal(env: Record<string, string>): string {
  try {
    loadServerConfig(env);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('DEV_MAILBOX', () => {
  it('is on by default for local and dev without SMTP_URL, off for qa and prod', () => {
    expect(loadServerConfig({}).DEV_MAILBOX).toBe(true);
    expect(loadServerConfig({ APP_ENV: 'local' }).DEV_MAILBOX).toBe(true);
    expect(loadServerConfig({ APP_ENV: 'dev', SMTP_URL: '' }).DEV_MAILBOX).toBe(true);
    expect(loadServerConfig({ APP_ENV: 'qa' }).DEV_MAILBOX).toBe(false);
    expect(loadServerConfig({ APP_ENV: 'prod' }).DEV_MAILBOX).toBe(false);
  });

  it('is off by default when SMTP_URL is set, and `true` or `false` decides', () => {
    const smtp = 'smtp://mail.example.com:587';
    expect(loadServerConfig({ APP_ENV: 'local', SMTP_URL: smtp }).DEV_MAILBOX).toBe(false);
    expect(loadServerConfig({ APP_ENV: 'local', SMTP_URL: smtp, DEV_MAILBOX: 'true' }).DEV_MAILBOX).toBe(
      true,
    );
    expect(loadServerConfig({ APP_ENV: 'qa', DEV_MAILBOX: '1' }).DEV_MAILBOX).toBe(true);
    expect(loadServerConfig({ APP_ENV: 'local', DEV_MAILBOX: 'false' }).DEV_MAILBOX).toBe(false);
    expect(loadServerConfig({ APP_ENV: 'local', DEV_MAILBOX: '' }).DEV_MAILBOX).toBe(true);
  });

  it('is refused with APP_ENV=prod when turned on', () => {
    expect(refusal({ APP_ENV: 'prod', DEV_MAILBOX: 'true' })).toBe(
      'Invalid server configuration:\n  DEV_MAILBOX: the development mailbox cannot run with APP_ENV=prod',
    );
    expect(loadServerConfig({ APP_ENV: 'prod', DEV_MAILBOX: 'false' }).DEV_MAILBOX).toBe(false);
    expect(refusal({ DEV_MAILBOX: 'yes' })).toMatch(/DEV_MAILBOX/);
  });

  it('listens on 2525 by default; 0 takes any free port', () => {
    expect(loadServerConfig({}).DEV_MAILBOX_PORT).toBe(2525);
    expect(loadServerConfig({ DEV_MAILBOX_PORT: '0' }).DEV_MAILBOX_PORT).toBe(0);
    expect(refusal({ DEV_MAILBOX_PORT: '65536' })).toMatch(/DEV_MAILBOX_PORT/);
  });
});

describe('SMTP_URL and MAIL_FROM', () => {
  it('takes smtp:// and smtps:// URLs, credentials included; unset or empty is no SMTP server', () => {
    expect(loadServerConfig({}).SMTP_URL).toBeUndefined();
    expect(loadServerConfig({ SMTP_URL: '' }).SMTP_URL).toBeUndefined();
    for (const url of ['smtp://mail.example.com', 'smtps://user%40example.com:p%40ss@mail.example.com:465']) {
      expect(loadServerConfig({ SMTP_URL: url }).SMTP_URL).toBe(url);
    }
  });

  it('refuses another URL with a clear message that does not repeat it (it holds a password)', () => {
    for (const bad of [
      'https://murmur:s3cret@mail.example.com',
      'smtp://',
      'murmur:s3cret@mail.example.com',
    ]) {
      const message = refusal({ SMTP_URL: bad });
      expect(message).toBe(
        'Invalid server configuration:\n' +
          '  SMTP_URL: Must be an smtp:// or smtps:// URL with a host (smtp://user:password@host:port)',
      );
      expect(message).not.toMatch(/s3cret/);
    }
  });

  it('sends as Murmur <murmur@localhost> by default, and takes an address with or without a name', () => {
    expect(loadServerConfig({}).MAIL_FROM).toBe('Murmur <murmur@localhost>');
    expect(loadServerConfig({ MAIL_FROM: '' }).MAIL_FROM).toBe('Murmur <murmur@localhost>');
    expect(loadServerConfig({ MAIL_FROM: 'alerts@murmur.example' }).MAIL_FROM).toBe('alerts@murmur.example');
    expect(loadServerConfig({ MAIL_FROM: 'Murmur Alerts <alerts@murmur.example>' }).MAIL_FROM).toBe(
      'Murmur Alerts <alerts@murmur.example>',
    );
    for (const bad of ['Murmur', 'Murmur <alerts>', 'a@b.c\r\nBcc: eve@example.com']) {
      expect(refusal({ MAIL_FROM: bad })).toMatch(/MAIL_FROM: Must be an address/);
    }
  });
});
