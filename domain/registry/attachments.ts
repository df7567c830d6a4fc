/**
 * Registry attachments (issue 17 deliverable 2): bytes in S3 (bucket config.s3.buckets.attachments,
 * key `registry/<entryId>/<attachmentId>`), the entry keeps only `{id, name, size, mimeType}` plus
 * the key and SHA-256. Legacy entries may still carry the bytes inline as base64 (`data` or
 * `fileData`); `migrateInlineAttachments` moves them out one entry at a time (spec 4.6).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { DeleteObjectsCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { config } from '../config';
import { Prisma, type PrismaClient } from '../db/prisma';
import { errors } from '../errors';
import { childLogger } from '../log';
import { s3 } from '../storage/service';
import { assertWritable, type RegistryViewer } from './access';
import { addHistory, getEntryRow, toEntry, type RegistryEntry, type StoredAttachment } from './entries';

const log = childLogger('registry');
const bucket = () => config.s3.buckets.attachments;
export const attachmentKey = (entryId: string, attachmentId: string) => `registry/${entryId}/${attachmentId}`;

const stored = (v: unknown) => (v as StoredAttachment[] | null) ?? [];

export interface NewFile {
  path: string;
  fileName: string;
  mimeType: string;
  size: number;
  sha256: string;
}

/** Uploads a file received on disk and appends its reference to the entry. */
export async function addAttachment(prisma: PrismaClient, viewer: RegistryViewer, entryId: string, file: NewFile): Promise<RegistryEntry> {
  const entry = await getEntryRow(prisma, viewer, entryId);
  assertWritable(viewer, entry.company);
  const id = randomUUID();
  const key = attachmentKey(entryId, id);
  const name = file.fileName.normalize('NFC').slice(0, 255) || 'fisier';
  await new Upload({
    client: s3(),
    params: { Bucket: bucket(), Key: key, Body: createReadStream(file.path), ContentType: file.mimeType, Metadata: { sha256: file.sha256 } },
    queueSize: 2,
    partSize: 16 * 1024 * 1024,
  }).done();
  const ref: StoredAttachment = { id, name, size: file.size, mimeType: file.mimeType, key, sha256: file.sha256 };
  const row = await prisma.$transaction(async (tx) => {
    // An atomic append: two uploads to one entry at once both land.
    const n = await tx.$executeRaw`UPDATE registry_entries SET attachments = attachments || ${JSON.stringify([ref])}::jsonb, updated_by = ${viewer.userId} WHERE id = ${entryId}::uuid`;
    if (n === 0) throw errors.notFound('Înregistrarea nu mai există.');
    const updated = await tx.registryEntry.findUniqueOrThrow({ where: { id: entryId } });
    await addHistory(tx, { entryId, company: updated.company, number: updated.number, action: 'attachment-add', actor: viewer, changes: [{ field: 'attachments', before: null, after: { id, name, size: file.size } }] });
    return updated;
  }).catch(async (err) => {
    await deleteAttachmentObjects([ref]).catch(() => undefined);
    throw err;
  });
  return toEntry(row, viewer);
}

export async function removeAttachment(prisma: PrismaClient, viewer: RegistryViewer, entryId: string, attachmentId: string): Promise<RegistryEntry> {
  const entry = await getEntryRow(prisma, viewer, entryId);
  assertWritable(viewer, entry.company);
  const { row, removed } = await prisma.$transaction(async (tx) => {
    const current = await tx.registryEntry.findUniqueOrThrow({ where: { id: entryId } });
    const list = stored(current.attachments);
    const gone = list.find((a) => a.id === attachmentId);
    if (!gone) throw errors.notFound('Atașamentul nu există.');
    const n = await tx.$executeRaw`
      UPDATE registry_entries
         SET attachments = COALESCE((SELECT jsonb_agg(a) FROM jsonb_array_elements(attachments) a WHERE a->>'id' IS DISTINCT FROM ${attachmentId}), '[]'::jsonb),
             updated_by = ${viewer.userId}
       WHERE id = ${entryId}::uuid`;
    if (n === 0) throw errors.notFound('Înregistrarea nu mai există.');
    const updated = await tx.registryEntry.findUniqueOrThrow({ where: { id: entryId } });
    await addHistory(tx, { entryId, company: updated.company, number: updated.number, action: 'attachment-remove', actor: viewer, changes: [{ field: 'attachments', before: { id: gone.id, name: gone.name, size: gone.size }, after: null }] });
    return { row: updated, removed: gone };
  });
  await deleteAttachmentObjects([removed]);
  return toEntry(row, viewer);
}

/** Removes the S3 objects of these attachments (inline ones have none). */
export async function deleteAttachmentObjects(list: StoredAttachment[]): Promise<void> {
  const keys = list.map((a) => a.key).filter((k): k is string => !!k);
  if (keys.length === 0) return;
  await s3().send(new DeleteObjectsCommand({ Bucket: bucket(), Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }));
}

export interface AttachmentDownload {
  name: string;
  mimeType: string;
  size: number;
  body: Readable;
}

/** Base64 payload of a legacy inline attachment (a data: URL or bare base64). */
function inlineBytes(a: StoredAttachment): Buffer | null {
  const raw = a.data ?? a.fileData;
  if (typeof raw !== 'string') return null;
  const comma = raw.startsWith('data:') ? raw.indexOf(',') : -1;
  return Buffer.from(comma >= 0 ? raw.slice(comma + 1) : raw, 'base64');
}

function inlineMime(a: StoredAttachment): string | null {
  const raw = a.data ?? a.fileData;
  const m = typeof raw === 'string' ? /^data:([^;,]+)[;,]/.exec(raw) : null;
  return m ? m[1] : null;
}

export async function openAttachment(prisma: PrismaClient, viewer: RegistryViewer, entryId: string, attachmentId: string): Promise<AttachmentDownload> {
  const entry = await getEntryRow(prisma, viewer, entryId);
  const a = stored(entry.attachments).find((x) => x.id === attachmentId);
  if (!a) throw errors.notFound('Atașamentul nu există.');
  if (a.key) {
    const obj = await s3().send(new GetObjectCommand({ Bucket: bucket(), Key: a.key }));
    return { name: a.name, mimeType: a.mimeType, size: Number(obj.ContentLength ?? a.size), body: obj.Body as Readable };
  }
  const bytes = inlineBytes(a);
  if (!bytes) throw errors.notFound('Conținutul atașamentului lipsește.');
  return { name: a.name, mimeType: a.mimeType || inlineMime(a) || 'application/octet-stream', size: bytes.length, body: Readable.from([bytes]) };
}

export interface MigrateBlobsResult {
  entries: number;
  attachments: number;
  bytes: number;
  /** Entries still holding inline attachments (0 when done). */
  remaining: number;
  failed: Array<{ entryId: string; error: string }>;
}

async function readObject(key: string): Promise<Buffer> {
  const obj = await s3().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
  return Buffer.from(await obj.Body!.transformToByteArray());
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Stable id for a legacy attachment without one, so a re-run writes the same S3 key. */
function legacyId(entryId: string, index: number): string {
  return createHash('sha256').update(`${entryId}:${index}`).digest('hex').slice(0, 32);
}

async function entriesWithInline(prisma: PrismaClient, after: string | null, limit: number): Promise<string[]> {
  const rows = await prisma.$queryRaw<Array<{ id: string }>>`
    SELECT id::text AS id FROM registry_entries
     WHERE jsonb_path_exists(attachments, '$[*] ? (exists(@.data) || exists(@.fileData))')
       AND (${after}::uuid IS NULL OR id > ${after}::uuid)
     ORDER BY id LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

/**
 * Moves inline base64 attachments into S3, one entry at a time (spec 4.6 migrate-blobs). Each
 * object is read back and compared by SHA-256 before the entry drops its inline copy, in one
 * short transaction per entry; an interrupted run resumes with the entries still holding inline
 * data, and a repeated run finds nothing to do (keys are deterministic, so a re-upload after a
 * crash overwrites the same object with the same bytes).
 */
export async function migrateInlineAttachments(prisma: PrismaClient, actor: { userId: string; name: string } | null, opts: { maxEntries?: number } = {}): Promise<MigrateBlobsResult> {
  const out: MigrateBlobsResult = { entries: 0, attachments: 0, bytes: 0, remaining: 0, failed: [] };
  const max = opts.maxEntries ?? Number.MAX_SAFE_INTEGER;
  let cursor: string | null = null;
  while (out.entries < max) {
    const ids = await entriesWithInline(prisma, cursor, 20);
    if (ids.length === 0) break;
    for (const entryId of ids) {
      cursor = entryId;
      if (out.entries >= max) break;
      try {
        const r = await migrateOne(prisma, entryId, actor);
        if (r.attachments > 0) out.entries++;
        out.attachments += r.attachments;
        out.bytes += r.bytes;
      } catch (err) {
        log.error({ err, entryId }, 'migrate-blobs: entry failed');
        out.failed.push({ entryId, error: (err as Error).message });
      }
    }
  }
  out.remaining = (await entriesWithInline(prisma, null, 1_000_000)).length;
  return out;
}

async function migrateOne(prisma: PrismaClient, entryId: string, actor: { userId: string; name: string } | null): Promise<{ attachments: number; bytes: number }> {
  const entry = await prisma.registryEntry.findUnique({ where: { id: entryId } });
  if (!entry) return { attachments: 0, bytes: 0 };
  const list = stored(entry.attachments);
  const moved = new Map<number, StoredAttachment>();
  let bytes = 0;
  for (const [i, a] of list.entries()) {
    const data = inlineBytes(a);
    if (!data) continue;
    const id = a.id || legacyId(entryId, i);
    const key = attachmentKey(entryId, id);
    const mimeType = a.mimeType || inlineMime(a) || 'application/octet-stream';
    const hash = sha256(data);
    await s3().send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: data, ContentType: mimeType, Metadata: { sha256: hash } }));
    const back = await readObject(key);
    if (sha256(back) !== hash) throw new Error(`object ${key} does not read back identical`);
    moved.set(i, { id, name: a.name || `atasament-${i + 1}`, size: data.length, mimeType, key, sha256: hash });
    bytes += data.length;
  }
  if (moved.size === 0) return { attachments: 0, bytes: 0 };
  await prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`registry-attachments:${entryId}`}))`;
    const current = await tx.registryEntry.findUnique({ where: { id: entryId } });
    if (!current) return;
    // Replace by position only where the inline copy is still the one we uploaded.
    const now = stored(current.attachments).map((a, i) => {
      const m = moved.get(i);
      const data = inlineBytes(a);
      return m && data && sha256(data) === m.sha256 ? m : a;
    });
    await tx.registryEntry.update({ where: { id: entryId }, data: { attachments: now as unknown as Prisma.InputJsonValue } });
    await addHistory(tx, {
      entryId,
      company: current.company,
      number: current.number,
      action: 'attachment-migrate',
      actor,
      changes: [...moved.values()].map((m) => ({ field: 'attachments', before: { id: m.id, name: m.name, stored: 'inline' }, after: { id: m.id, name: m.name, stored: 's3', size: m.size } })),
    });
  });
  return { attachments: moved.size, bytes };
}
