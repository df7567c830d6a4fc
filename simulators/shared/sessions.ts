/** Portal sessions of the simulators: a random cookie value, forgotten after an idle period. */
import { randomBytes } from 'node:crypto';

interface Session {
  username: string;
  lastSeen: number;
}

export class Sessions {
  private readonly byId = new Map<string, Session>();

  create(username: string): string {
    const id = randomBytes(16).toString('hex').toUpperCase();
    this.byId.set(id, { username, lastSeen: Date.now() });
    return id;
  }

  /** The session's user if it is alive (and refreshes its idle clock), else null. */
  touch(id: string | undefined, ttlSeconds: number): string | null {
    if (!id) return null;
    const s = this.byId.get(id);
    if (!s) return null;
    const now = Date.now();
    if (now - s.lastSeen > ttlSeconds * 1000) {
      this.byId.delete(id);
      return null;
    }
    s.lastSeen = now;
    return s.username;
  }

  destroy(id: string | undefined): void {
    if (id) this.byId.delete(id);
  }

  clear(): void {
    this.byId.clear();
  }
}
