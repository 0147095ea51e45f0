// oidc-provider's storage for the development provider: in memory, for the life of the process (its own bundled
// memory adapter does the same but announces itself as unfit for production on every start).
import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  expiresAt: number;
}

const MAX_ENTRIES = 10_000;

/** An adapter class with its own store: each provider (one per app) keeps its data apart. */
export function createMemoryAdapter(): new (model: string) => Adapter {
  const store = new Map<string, Entry>();
  const sweep = () => {
    const now = Date.now();
    for (const [key, entry] of store) if (entry.expiresAt <= now) store.delete(key);
  };
  return class MemoryAdapter implements Adapter {
    constructor(private readonly model: string) {}

    private key(id: string) {
      return `${this.model}:${id}`;
    }

    private get(key: string): AdapterPayload | undefined {
      const entry = store.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= Date.now()) {
        store.delete(key);
        return undefined;
      }
      return entry.payload;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number) {
      if (store.size >= MAX_ENTRIES) sweep();
      const expiresAt = Date.now() + (expiresIn > 0 ? expiresIn : 3600) * 1000;
      store.set(this.key(id), { payload, expiresAt });
      if (payload.grantId) {
        const grantKey = `grant:${payload.grantId}`;
        const members = (store.get(grantKey)?.payload.members as string[] | undefined) ?? [];
        store.set(grantKey, { payload: { members: [...members, this.key(id)] }, expiresAt });
      }
      if (payload.uid) store.set(`uid:${this.model}:${payload.uid}`, { payload: { id }, expiresAt });
      if (payload.userCode) store.set(`userCode:${payload.userCode}`, { payload: { id }, expiresAt });
    }

    async find(id: string) {
      return this.get(this.key(id));
    }

    async findByUid(uid: string) {
      const pointer = this.get(`uid:${this.model}:${uid}`);
      return typeof pointer?.id === 'string' ? this.find(pointer.id) : undefined;
    }

    async findByUserCode(userCode: string) {
      const pointer = this.get(`userCode:${userCode}`);
      return typeof pointer?.id === 'string' ? this.find(pointer.id) : undefined;
    }

    async consume(id: string) {
      const entry = store.get(this.key(id));
      if (entry) entry.payload = { ...entry.payload, consumed: Math.floor(Date.now() / 1000) };
    }

    async destroy(id: string) {
      store.delete(this.key(id));
    }

    async revokeByGrantId(grantId: string) {
      const grantKey = `grant:${grantId}`;
      const members = (store.get(grantKey)?.payload.members as string[] | undefined) ?? [];
      for (const key of members) store.delete(key);
      store.delete(grantKey);
    }
  };
}
