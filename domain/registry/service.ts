/**
 * The registry's door (docs/architecture.md "Areas"): everything the rest of the house may ask of
 * the registry, each call applying the registry viewer inside. Built once per process by
 * `domain/services.ts` `createServices` and handed to the registry's routes
 * (api/routes/registratura.ts), its page's loader (web/app/lib/registry.server.ts, through the load
 * context) and its activities (activities/registry.ts). Its pure rules are in `rules.ts`.
 */
import { config } from '../config';
import type { NotificationsService } from '../notifications/service';
import type { AreaDeps } from '../areaDeps';
import type { RegistryViewer } from './access';
import { addAttachment, deleteAttachmentObjects, migrateInlineAttachments, openAttachment, removeAttachment, type NewFile } from './attachments';
import { dueRegistryEntries } from './due';
import { createEntry, deleteEntry, entryHistory, getEntry, getEntryRow, listEntries, updateEntry, type EntryInput, type EntryPatch, type ListQuery } from './entries';
import { repairSequences, sequenceReport } from './sequences';
import { checkEntryStatus, monitoredEntryIds, type StatusAuthorityTarget } from './statusCheck';
import { errors } from '../errors';
import { childLogger } from '../log';

const log = childLogger('registry');

export type { AttachmentDownload, MigrateBlobsResult, NewFile } from './attachments';
export type { DueRegistryEntry } from './due';
export type { EntryInput, EntryPage, EntryPatch, HistoryItem, ListQuery, RegistryEntry } from './entries';
export type { SequenceRepair, SequenceReport } from './sequences';
export type { CheckOutcome, StatusCheckResult } from './statusCheck';

type Actor = { userId: string; name: string };

export interface RegistryDeps extends AreaDeps {
  /** A changed status notifies the entry's followers. */
  notifications: Pick<NotificationsService, 'notify'>;
}

export function createRegistryService({ store, outside, notifications }: RegistryDeps) {
  const { prisma, pool } = store;
  const authority: StatusAuthorityTarget = {
    baseUrl: outside.statusAuthorityUrl ?? config.statusAuthority.baseUrl,
    timeoutMs: config.statusAuthority.timeoutMs,
  };
  return {
    listEntries: (viewer: RegistryViewer, q: ListQuery) => listEntries(prisma, viewer, q),
    getEntry: (viewer: RegistryViewer, id: string) => getEntry(prisma, viewer, id),
    entryHistory: (viewer: RegistryViewer, id: string) => entryHistory(prisma, viewer, id),
    createEntry: (viewer: RegistryViewer, input: EntryInput) => createEntry(pool, viewer, input),
    updateEntry: (viewer: RegistryViewer, id: string, patch: EntryPatch) => updateEntry(prisma, viewer, id, patch),
    /** Deletes the entry (only the last number of its series), then its attachments' objects (a failure there is logged: the entry is gone). */
    async deleteEntry(viewer: RegistryViewer, id: string) {
      const gone = await deleteEntry(prisma, viewer, id);
      await deleteAttachmentObjects(gone.attachments).catch((err) => log.error({ err, entryId: id }, 'attachment objects left after delete'));
      return gone;
    },
    /** Whether the viewer may add to the entry (its 404 otherwise), before an upload is read. */
    assertEntry: async (viewer: RegistryViewer, id: string) => void (await getEntryRow(prisma, viewer, id)),
    addAttachment: (viewer: RegistryViewer, id: string, file: NewFile) => addAttachment(prisma, viewer, id, file),
    openAttachment: (viewer: RegistryViewer, id: string, attachmentId: string) => openAttachment(prisma, viewer, id, attachmentId),
    removeAttachment: (viewer: RegistryViewer, id: string, attachmentId: string) => removeAttachment(prisma, viewer, id, attachmentId),
    sequenceReport: () => sequenceReport(prisma),
    repairSequences: (actor: Actor) => repairSequences(prisma, actor),
    migrateInlineAttachments: (actor: Actor | null, opts: { maxEntries?: number }) => migrateInlineAttachments(prisma, actor, opts),
    /** One tracked entry checked at the status authority now; a change notifies its followers. */
    async checkNow(viewer: RegistryViewer, id: string) {
      const row = await getEntryRow(prisma, viewer, id);
      if (!row.tracking) throw errors.conflict('not_tracked', 'Înregistrarea nu are o cerere urmărită la autoritate.');
      const { notification, ...result } = await checkEntryStatus(prisma, pool, id, authority);
      const notified = notification ? (await notifications.notify(notification)).created : false;
      return { ...result, notified, entry: await getEntry(prisma, viewer, id) };
    },
    /** The batch check's steps (the registry-status-check job): the tracked entries, then one check each. */
    monitoredEntryIds: () => monitoredEntryIds(prisma),
    checkEntryStatus: (id: string) => checkEntryStatus(prisma, pool, id, authority),
    /** The entries whose deadline falls due, for the daily digest. */
    dueEntries: (opts: Parameters<typeof dueRegistryEntries>[1]) => dueRegistryEntries(pool, opts),
  };
}

export type RegistryService = ReturnType<typeof createRegistryService>;
