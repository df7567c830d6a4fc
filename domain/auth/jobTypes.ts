/** What sign-in's jobs answer (workflows/sessionHousekeeping.ts). */

export interface SessionHousekeepingResult {
  deletedSessions: number;
}
