import { describe, expect, it } from 'vitest';
import { readTokens, removeTokens, writeTokens } from '@/lib/token-storage';
import { AUTH_TOKENS_KEY } from '@/lib/storage-keys';

class MemoryStorage implements Storage {
  private map = new Map<string, string>();
  get length() {
    return this.map.size;
  }
  clear() {
    this.map.clear();
  }
  getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  key(index: number) {
    return [...this.map.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.map.delete(key);
  }
  setItem(key: string, value: string) {
    this.map.set(key, value);
  }
}

describe('stored tokens (spec §3, §5)', () => {
  it('round-trips the two-string object under auth_tokens', () => {
    const storage = new MemoryStorage();
    writeTokens({ access_token: 'a', refresh_token: 'r' }, storage);
    expect(JSON.parse(storage.getItem(AUTH_TOKENS_KEY)!)).toEqual({ access_token: 'a', refresh_token: 'r' });
    expect(readTokens(storage)).toEqual({ ok: true, tokens: { access_token: 'a', refresh_token: 'r' } });
    removeTokens(storage);
    expect(readTokens(storage)).toEqual({ ok: true, tokens: null });
  });

  it.each(['not json', '[]', 'null', '{"access_token":"a"}', '{"access_token":1,"refresh_token":"r"}'])(
    'fails to read %s',
    (raw) => {
      const storage = new MemoryStorage();
      storage.setItem(AUTH_TOKENS_KEY, raw);
      expect(readTokens(storage).ok).toBe(false);
    },
  );
});
