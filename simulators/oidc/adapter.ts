/**
 * In-memory storage for oidc-provider, one per provider instance (the library's own memory
 * adapter is a module-level singleton, which would make `/__sim/reset` and two providers in one
 * test process interfere). Reset forgets every grant, token and session: existing refresh tokens
 * then fail, which is how tests provoke a refresh failure.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  expiresAt?: number;
}

export class MemoryStore {
  readonly entries = new Map<string, Entry>();
  /** grantId → keys of the tokens issued under it (for revokeByGrantId). */
  readonly grants = new Map<string, Set<string>>();
  readonly uids = new Map<string, string>();
  readonly userCodes = new Map<string, string>();

  clear(): void {
    this.entries.clear();
    this.grants.clear();
    this.uids.clear();
    this.userCodes.clear();
  }

  get(key: string): AdapterPayload | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt !== undefined && e.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.payload;
  }
}

export function memoryAdapter(store: MemoryStore) {
  return class SimMemoryAdapter implements Adapter {
    constructor(readonly name: string) {}

    private key(id: string): string {
      return `${this.name}:${id}`;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const key = this.key(id);
      store.entries.set(key, {
        payload: structuredClone(payload),
        expiresAt: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : undefined,
      });
      if (payload.grantId) {
        const set = store.grants.get(payload.grantId) ?? new Set<string>();
        set.add(key);
        store.grants.set(payload.grantId, set);
      }
      if (payload.uid) store.uids.set(payload.uid, id);
      if (payload.userCode) store.userCodes.set(payload.userCode, id);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const p = store.get(this.key(id));
      return p ? structuredClone(p) : undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = store.uids.get(uid);
      return id ? this.find(id) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const id = store.userCodes.get(userCode);
      return id ? this.find(id) : undefined;
    }

    async consume(id: string): Promise<void> {
      const p = store.get(this.key(id));
      if (p) p.consumed = Math.floor(Date.now() / 1000);
    }

    async destroy(id: string): Promise<void> {
      store.entries.delete(this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      for (const key of store.grants.get(grantId) ?? []) store.entries.delete(key);
      store.grants.delete(grantId);
    }
  };
}
