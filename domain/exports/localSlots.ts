/**
 * export-local builds run inside the web process (no job, spec 4.4) and each one runs ogr2ogr
 * over a whole UAT, so they are bounded (issue 13): one at a time per user and a few at a time
 * for everyone (config.exports.localMaxConcurrent); beyond that the caller gets 429.
 */
import { config } from '../config';
import { UserSlots } from '../concurrency';

export const localExportSlots = new UserSlots(() => ({ perUser: 1, total: config.exports.localMaxConcurrent }), {
  retryAfterSeconds: 30,
  user: 'Aveți deja un export local în lucru. Așteptați să se termine, apoi încercați din nou.',
  all: 'Se construiesc deja prea multe exporturi locale. Încercați din nou peste un minut.',
});
