/**
 * The one rule for what a user started (issue 25): a job's progress and result, an export file.
 * Its starter or an administrator may read it; a thing with no recorded starter (a schedule's or
 * a cron's job) is the administrators'.
 */
export interface Reader {
  userId: string;
  isAdmin: boolean;
}

export function ownerOrAdmin(reader: Reader, ownerId: string | null | undefined): boolean {
  return reader.isAdmin || (!!ownerId && ownerId === reader.userId);
}
