/**
 * The watchlist and the per-feature history. A user follows a parcel or a whole UAT. The history
 * (feature_changes) is written for every feature of the store by the writes themselves: the
 * sync's page upsert and removals (domain/landreg/sync/store.ts) and the enrichment write
 * (domain/enrichment/store.ts), each in the statement that changes the row. A history row of a UAT
 * where something is followed is written `notified = false`; `notifyFeatureChanges` then tells the
 * followers (`watch-change`, through notify(): in-app, then per preference an instant e-mail or
 * the digest) and marks the rows notified. A retried activity neither repeats a notification
 * (notify keys) nor loses one (the rows stay pending until it is written).
 */
import { withTransaction, type Db } from '../db/pool';
import type { PrismaClient } from '../db/prisma';
import { PERSONAL_ENRICHMENT_KEYS, type Viewer } from '../auth/rules';
import { errors } from '../errors';
import { cadastralRefs, featureLabel, uatsBySiruta } from '../landreg/service';
import { notify } from './notify';
import { countOf } from '../text/plural';
import type { StartDelivery } from './outbox';

/** Only parcels are followed (spec 2.1: TERENURI_ACTIVE is the parcel layer). */
export const WATCHED_LAYER = 'TERENURI_ACTIVE';

/**
 * History field names (the enrichment's keys where it has one): the layer's fields written by the
 * sync (NR_CAD, SUPRAFATA = the layer's AREA_VALUE, GEOMETRIE, ADAUGATA, ELIMINATA) and the
 * enrichment's (PROPRIETARI, NR_CF, ADRESA, CATEGORIE).
 */
const FIELD_LABEL: Record<string, string> = {
  PROPRIETARI: 'proprietari',
  NR_CF: 'număr CF',
  ADRESA: 'adresă',
  CATEGORIE: 'categorie de folosință',
  NR_CAD: 'număr cadastral',
  SUPRAFATA: 'suprafață',
  GEOMETRIE: 'geometrie',
  ADAUGATA: 'parcelă nouă în registru',
  ELIMINATA: 'parcela a fost eliminată din registru',
};

export interface WatchItem {
  id: string;
  kind: 'parcel' | 'uat';
  siruta: number;
  featureId?: string;
  label: string;
  createdAt: string;
}

type WatchRow = { id: string; kind: string; siruta: number; featureId: string | null; label: string; createdAt: Date };
const toItem = (r: WatchRow): WatchItem => ({
  id: r.id,
  kind: r.kind as WatchItem['kind'],
  siruta: r.siruta,
  ...(r.featureId ? { featureId: r.featureId } : {}),
  label: r.label,
  createdAt: r.createdAt.toISOString(),
});

export async function listWatches(prisma: PrismaClient, userId: string): Promise<WatchItem[]> {
  const rows = await prisma.watchlistItem.findMany({ where: { userId }, orderBy: { createdAt: 'desc' } });
  return rows.map(toItem);
}

/** Parcels and UATs one user may follow: the list is answered whole, and each follow is checked at every sync. */
export const MAX_WATCHES_PER_USER = 1000;

/**
 * Follows a parcel or a UAT; following it again answers the existing item (`created: false`).
 * Notifications start with the next change (the history before it is on the timeline already).
 * Past MAX_WATCHES_PER_USER a 409 `too_many_watches`.
 */
export async function addWatch(db: Db, userId: string, what: { featureId: string } | { siruta: number }): Promise<{ item: WatchItem; created: boolean }> {
  if ('featureId' in what) {
    const feature = await featureLabel(db, what.featureId);
    if (!feature) throw errors.notFound('Parcela nu există în baza de date locală.');
    if (feature.layerId !== WATCHED_LAYER) throw errors.badRequest('Se pot urmări doar parcele, nu clădiri sau limite.', [{ field: 'featureId', problem: 'not a parcel' }]);
    const label = `Parcela ${feature.cadastralRef ?? `#${feature.objectId}`}${feature.uatName ? ` (${feature.uatName})` : ''}`;
    return follow(db, userId, { kind: 'parcel', siruta: feature.siruta, featureId: what.featureId, label });
  }
  const uat = (await uatsBySiruta(db, [what.siruta])).get(what.siruta);
  if (!uat) throw errors.notFound('UAT-ul nu există în catalog.');
  return follow(db, userId, { kind: 'uat', siruta: what.siruta, featureId: null, label: `UAT ${uat.name}${uat.county ? ` (${uat.county})` : ''}` });
}

const WATCH_COLUMNS = `id, kind, siruta, feature_id AS "featureId", label, created_at AS "createdAt"`;

/**
 * The follow itself, under a lock per user: a double click followed twice and two follows side by
 * side could each count one under the cap (READ COMMITTED), as personal tokens once could.
 */
function follow(db: Db, userId: string, w: { kind: WatchItem['kind']; siruta: number; featureId: string | null; label: string }): Promise<{ item: WatchItem; created: boolean }> {
  return withTransaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('watchlist:' || $1))`, [userId]);
    const same = await tx.query<WatchRow>(
      `SELECT ${WATCH_COLUMNS} FROM watchlist
        WHERE user_id = $1 AND kind = $2 AND (CASE WHEN $2 = 'parcel' THEN feature_id = $3::uuid ELSE siruta = $4 END) LIMIT 1`,
      [userId, w.kind, w.featureId, w.siruta],
    );
    if (same.rows[0]) return { item: toItem(same.rows[0]), created: false };
    const held = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM watchlist WHERE user_id = $1`, [userId]);
    if ((held.rows[0]?.n ?? 0) >= MAX_WATCHES_PER_USER) {
      throw errors.conflict(
        'too_many_watches',
        `Urmăriți deja ${countOf(MAX_WATCHES_PER_USER, 'parcelă sau UAT', 'parcele și UAT-uri')}. Renunțați la cele pe care nu le mai urmăriți, apoi adăugați altele.`,
      );
    }
    const row = await tx.query<WatchRow>(
      `INSERT INTO watchlist (user_id, kind, siruta, feature_id, label) VALUES ($1, $2, $3, $4::uuid, $5) RETURNING ${WATCH_COLUMNS}`,
      [userId, w.kind, w.siruta, w.featureId, w.label],
    );
    return { item: toItem(row.rows[0]!), created: true };
  }, db);
}

export async function removeWatch(prisma: PrismaClient, userId: string, id: string): Promise<void> {
  const r = await prisma.watchlistItem.deleteMany({ where: { id, userId } });
  if (r.count === 0) throw errors.notFound('Elementul urmărit nu există.');
}

export interface HistoryItem {
  at: string;
  field: string;
  before: string | null;
  after: string | null;
  syncRunId: string | null;
  /** Who saw the change: a sync run (`syncRunId`) or an enrichment (`jobId`, none for a single parcel). */
  source: 'sync' | 'enrichment';
  jobId: string | null;
}

const PERSONAL_FIELDS: ReadonlySet<string> = new Set<string>(PERSONAL_ENRICHMENT_KEYS);

/** A feature's change history, newest first; personal values (owners, CF number, address) only for a viewer allowed them. */
export async function featureHistory(prisma: PrismaClient, featureId: string, viewer: Viewer): Promise<HistoryItem[]> {
  const rows = await prisma.featureChange.findMany({ where: { featureId }, orderBy: [{ at: 'desc' }, { field: 'asc' }], take: 500 });
  return rows.map((r) => {
    const hide = !viewer.personalData && PERSONAL_FIELDS.has(r.field);
    return {
      at: r.at.toISOString(),
      field: r.field,
      before: hide ? null : r.before,
      after: hide ? null : r.after,
      syncRunId: r.syncRunId,
      source: r.source === 'enrichment' ? 'enrichment' : 'sync',
      jobId: r.jobId,
    };
  });
}

// ---- notifications of the followed changes -----------------------------------------------------

type PendingChange = { id: string; feature_id: string; siruta: number; field: string; batch: string };

function groupBy<T>(list: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of list) {
    const k = key(x);
    const group = out.get(k);
    if (group) group.push(x);
    else out.set(k, [x]);
  }
  return out;
}

/** The changed fields' names, in FIELD_LABEL's order (owners first), each once. */
const FIELD_ORDER = Object.keys(FIELD_LABEL);
const fieldNames = (list: readonly PendingChange[]) =>
  [...new Set(list.map((c) => c.field))].sort((a, b) => FIELD_ORDER.indexOf(a) - FIELD_ORDER.indexOf(b)).map((f) => FIELD_LABEL[f] ?? f);

/**
 * Notifies the followers of history rows not yet notified: a parcel's follower gets one
 * notification per parcel and batch (sync run, or enrichment write); a UAT's follower one per UAT
 * and batch. Values are not repeated in the notification (personal data); the timeline has them.
 */
export async function notifyFeatureChanges(db: Db, deliver: StartDelivery, scope: { siruta: number } | { featureIds: readonly string[] }): Promise<number> {
  const r = await db.query<PendingChange>(
    `SELECT id, feature_id, siruta, field, COALESCE(sync_run_id::text, min(id::text) OVER (PARTITION BY feature_id, at)) AS batch
       FROM feature_changes
      WHERE NOT notified AND ${'siruta' in scope ? 'siruta = $1' : 'feature_id = ANY($1::uuid[])'}
      ORDER BY at, id`,
    ['siruta' in scope ? scope.siruta : scope.featureIds],
  );
  if (r.rows.length === 0) return 0;
  const featureIds = [...new Set(r.rows.map((x) => x.feature_id))];
  const sirutas = [...new Set(r.rows.map((x) => x.siruta))];
  const [watchers, uats, refOf] = await Promise.all([
    db.query<{ user_id: string; kind: string; siruta: number; feature_id: string | null; label: string }>(
      `SELECT user_id, kind, siruta, feature_id, label FROM watchlist WHERE feature_id = ANY($1::uuid[]) OR (kind = 'uat' AND siruta = ANY($2::int[]))`,
      [featureIds, sirutas],
    ),
    uatsBySiruta(db, sirutas),
    cadastralRefs(db, featureIds),
  ]);
  const uatName = new Map([...uats].map(([siruta, u]) => [siruta, u.name]));
  let sent = 0;
  // Parcel followers: one per parcel and batch.
  for (const [k, list] of groupBy(r.rows, (c) => `${c.feature_id}|${c.batch}`)) {
    const [featureId, batch] = k.split('|');
    const fields = fieldNames(list);
    const ref = refOf.get(featureId);
    const uat = uatName.get(list[0].siruta);
    for (const w of watchers.rows.filter((x) => x.kind === 'parcel' && x.feature_id === featureId)) {
      // The follower's own label names a removed parcel too (its row is gone from the store).
      const what = ref ? `Parcela ${ref}${uat ? ` (${uat})` : ''}` : w.label;
      const res = await notify(db, deliver, {
        userId: w.user_id,
        type: 'watch-change',
        title: `${what} s-a modificat`,
        body: `Modificări: ${fields.join(', ')}.`,
        link: `/geoportal?feature=${featureId}`,
        idempotencyKey: `watch-change:${w.user_id}:${featureId}:${batch}`,
      });
      if (res.created) sent++;
    }
  }
  // UAT followers: one per UAT and batch.
  for (const [k, list] of groupBy(r.rows, (c) => `${c.siruta}|${c.batch}`)) {
    const [sirutaText, batch] = k.split('|');
    const siruta = Number(sirutaText);
    const parcels = new Set(list.map((c) => c.feature_id)).size;
    const uat = uatName.get(siruta) ?? `SIRUTA ${siruta}`;
    for (const w of watchers.rows.filter((x) => x.kind === 'uat' && x.siruta === siruta)) {
      const res = await notify(db, deliver, {
        userId: w.user_id,
        type: 'watch-change',
        title: `${parcels === 1 ? 'O parcelă urmărită s-a modificat' : `${countOf(parcels, 'parcelă urmărită', 'parcele urmărite')} s-au modificat`} în ${uat}`,
        body: `Câmpuri modificate: ${fieldNames(list).join(', ')}.`,
        link: `/geoportal?siruta=${siruta}`,
        idempotencyKey: `watch-change:${w.user_id}:uat:${siruta}:${batch}`,
      });
      if (res.created) sent++;
    }
  }
  await db.query(`UPDATE feature_changes SET notified = true WHERE id = ANY($1::uuid[])`, [r.rows.map((x) => x.id)]);
  return sent;
}

