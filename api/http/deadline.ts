/**
 * An overall deadline for a request that waits on an outside service (the portal): each call has
 * its own timeout and retries, so without this a request could wait for their sum. Past the
 * deadline the caller gets 504 `upstream_timeout`; the work left behind ends on its own timeouts.
 */
import { AppError } from '../../domain/errors';
import { config } from '../../domain/config';

export function withinDeadline<T>(
  work: Promise<T>,
  ms: number = config.landreg.apiDeadlineMs,
  message = 'Portalul de cadastru nu a răspuns în timpul alocat cererii. Încercați din nou.',
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError(504, 'upstream_timeout', message)), ms);
  });
  // The work may still fail after the deadline answered: nobody awaits it then.
  work.catch(() => undefined);
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}
