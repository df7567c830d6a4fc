/**
 * Monitoring of submissions at the municipal status authority (spec 3.5, 4.5 status-check, 6;
 * EXTERNAL-SERVICES.md). One check of one tracked entry:
 *   fetch `<base>/cerere/<requestNumber>` → extract the status block (domain/registry/status.ts)
 *   → compare its hash with the stored `changeHash`.
 * A 5xx, a timeout, a network error or a page without a status block is recorded as `lastError`
 * and is never a change. The page is read through the outside-call base (domain/outside/call.ts):
 * its transport with the authority's shared rate limit and the deadline, one more try of the read from an API request
 * (the scheduled check runs in an activity, which Temporal retries). The first successful read sets the baseline (no notification: nothing
 * changed yet); a later different hash is a change: the status, colour class and history are
 * updated and the caller sends ONE `status-change` notification (idempotency key = entry id +
 * new hash) through the notifications module.
 */
import type { Db } from '../db/pool';
import type { PrismaClient } from '../db/prisma';
import { outsideCall, transportFailure, send } from '../outside/service';
import { Prisma } from '../db/prisma';
import type { NotifyInput } from '../notifications/rules';
import { addHistory, type Tracking } from './entries';
import { extractStatus, FINAL_STATUS_CODES, FINAL_STATUS_WATCH_DAYS, STATUS_LABEL, type ExtractedStatus } from './status';

export interface StatusAuthorityTarget {
  baseUrl: string;
  timeoutMs: number;
}

export type PageRead = { ok: true; status: ExtractedStatus } | { ok: false; error: string };

/** A read that failed; `transient` ones (no answer, a 5xx) may pass on another try. */
class ReadFailure extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/** `db`: the caller's store's pool, whose shared schedule paces the authority. */
export async function readStatusPage(db: Db, target: StatusAuthorityTarget, requestNumber: string): Promise<PageRead> {
  const url = `${target.baseUrl.replace(/\/+$/, '')}/cerere/${encodeURIComponent(requestNumber)}`;
  try {
    const html = await outsideCall(
      { service: 'statusAuthority', idempotent: true, retry: { retries: 1, baseDelayMs: 200 }, transient: (err) => err instanceof ReadFailure && err.transient },
      async () => {
        let res: Awaited<ReturnType<typeof send>>;
        try {
          res = await send({ service: 'statusAuthority', db }, { url, headers: { accept: 'text/html' }, timeoutMs: target.timeoutMs, follow: true });
        } catch (err) {
          const failure = transportFailure(err);
          if (failure === 'aborted') throw err;
          throw new ReadFailure(failure === 'timeout' ? `timeout după ${target.timeoutMs} ms` : `eroare de rețea: ${(err as Error).message}`, true);
        }
        const text = await res.text().catch(() => '');
        if (!res.ok) throw new ReadFailure(`HTTP ${res.status}`, res.status >= 500);
        return text;
      },
    );
    const status = extractStatus(html);
    if (!status) return { ok: false, error: 'pagina nu conține starea cererii (pagină de eroare)' };
    return { ok: true, status };
  } catch (err) {
    if (err instanceof ReadFailure) return { ok: false, error: err.message };
    throw err;
  }
}

export type CheckOutcome = 'baseline' | 'unchanged' | 'changed' | 'error' | 'not-tracked';

export interface StatusCheckResult {
  entryId: string;
  number: string;
  outcome: CheckOutcome;
  status: string | null;
  statusClass: string | null;
  changeHash: string | null;
  error?: string;
  /** Set on a change: what to send through notify() (the caller sends it). */
  notification?: NotifyInput;
}

function labelOf(t: Tracking): string {
  return t.statusLabel ?? (t.status && t.status in STATUS_LABEL ? STATUS_LABEL[t.status as keyof typeof STATUS_LABEL] : (t.status ?? 'necunoscută'));
}

/**
 * Ids of the entries the batch check asks about, oldest check first: every entry with a tracking
 * block but those whose request ended (FINAL_STATUS_CODES) more than FINAL_STATUS_WATCH_DAYS ago.
 */
export async function monitoredEntryIds(prisma: PrismaClient): Promise<string[]> {
  const rows = await prisma.$queryRaw<Array<{ id: string }>>`
    SELECT id::text AS id FROM registry_entries
     WHERE tracking IS NOT NULL
       AND NOT coalesce(tracking->>'status' = ANY(${[...FINAL_STATUS_CODES]}::text[])
                        AND (tracking->'history'->-1->>'at')::timestamptz < now() - make_interval(days => ${FINAL_STATUS_WATCH_DAYS}::int), false)
     ORDER BY tracking->>'lastCheckedAt' NULLS FIRST, id`;
  return rows.map((r) => r.id);
}

export async function checkEntryStatus(prisma: PrismaClient, db: Db, entryId: string, target: StatusAuthorityTarget, now = new Date()): Promise<StatusCheckResult> {
  const entry = await prisma.registryEntry.findUnique({ where: { id: entryId } });
  const tracking = (entry?.tracking as unknown as Tracking | null) ?? null;
  if (!entry || !tracking) {
    return { entryId, number: entry?.number ?? '', outcome: 'not-tracked', status: null, statusClass: null, changeHash: null };
  }
  const read = await readStatusPage(db, target, tracking.requestNumber);
  return prisma.$transaction(async (tx) => {
    // Two checks of one entry at once (schedule and a user's "check now") must not both record it.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`registry-status:${entryId}`}))`;
    const row = await tx.registryEntry.findUnique({ where: { id: entryId } });
    const t = (row?.tracking as unknown as Tracking | null) ?? null;
    if (!row || !t || t.requestNumber !== tracking.requestNumber) {
      return { entryId, number: row?.number ?? entry.number, outcome: 'not-tracked' as const, status: null, statusClass: null, changeHash: null };
    }
    const at = now.toISOString();
    const save = (next: Tracking) =>
      tx.registryEntry.update({ where: { id: entryId }, data: { tracking: next as unknown as Prisma.InputJsonValue } });
    if (!read.ok) {
      await save({ ...t, lastCheckedAt: at, lastError: read.error });
      return { entryId, number: row.number, outcome: 'error' as const, status: t.status, statusClass: t.statusClass, changeHash: t.changeHash, error: read.error };
    }
    const s = read.status;
    const base = { entryId, number: row.number, status: s.code ?? s.label, statusClass: s.statusClass, changeHash: s.hash };
    if (t.changeHash === s.hash) {
      await save({ ...t, lastCheckedAt: at, lastError: null });
      return { ...base, outcome: 'unchanged' as const };
    }
    const first = t.changeHash === null;
    const next: Tracking = {
      ...t,
      status: s.code ?? s.label,
      statusLabel: s.label,
      statusText: s.text,
      statusClass: s.statusClass,
      changeHash: s.hash,
      lastCheckedAt: at,
      lastError: null,
      petitionerName: t.petitionerName ?? s.petitionerName,
      history: [...(t.history ?? []), { at, status: s.code ?? s.label, text: s.text }],
    };
    await save(next);
    await addHistory(tx, {
      entryId,
      company: row.company,
      number: row.number,
      action: 'status-change',
      actor: null,
      changes: [{ field: 'tracking.status', before: first ? null : t.status, after: next.status }],
    });
    if (first || !row.createdBy) return { ...base, outcome: first ? ('baseline' as const) : ('changed' as const) };
    const notification: NotifyInput = {
      userId: row.createdBy,
      type: 'status-change',
      title: `Stare nouă la ${t.authority}: ${s.label} (${row.number})`,
      body: `Cererea ${t.requestNumber} a înregistrării ${row.number} („${row.subject}”) a trecut din „${labelOf(t)}” în „${s.label}”.${s.text ? ` ${s.text}` : ''}`,
      link: `/registratura?id=${entryId}`,
      idempotencyKey: `status-change:${entryId}:${s.hash}`,
    };
    return { ...base, outcome: 'changed' as const, notification };
  });
}
