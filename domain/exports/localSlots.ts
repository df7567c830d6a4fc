/**
 * export-local builds run inside the web process (no job, spec 4.4) and each one runs ogr2ogr
 * over a whole UAT, so they are bounded (issue 13): one at a time per user and a few at a time
 * for everyone (config.exports.localMaxConcurrent); beyond that the caller gets 429. Per process,
 * like the rate limits (docs/architecture.md).
 */
import { config } from '../config';
import { errors } from '../errors';

const RETRY_AFTER_SECONDS = 30;

export class LocalExportSlots {
  private readonly users = new Set<string>();

  constructor(private readonly max: () => number = () => config.exports.localMaxConcurrent) {}

  get active(): number {
    return this.users.size;
  }

  /** Takes a slot for `userId` or throws 429; the answer gives it back (once). */
  acquire(userId: string): () => void {
    if (this.users.has(userId)) {
      throw errors.rateLimited(RETRY_AFTER_SECONDS, 'Aveți deja un export local în lucru. Așteptați să se termine, apoi încercați din nou.');
    }
    if (this.users.size >= this.max()) {
      throw errors.rateLimited(RETRY_AFTER_SECONDS, 'Se construiesc deja prea multe exporturi locale. Încercați din nou peste un minut.');
    }
    this.users.add(userId);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.users.delete(userId);
    };
  }
}

export const localExportSlots = new LocalExportSlots();
