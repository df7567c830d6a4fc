/**
 * The watchlist: a user follows a parcel or a whole UAT; after each parcel-layer sync and each
 * enrichment write, `recordWatchChanges` compares the followed parcels with their last known
 * state (watch_snapshots), appends the differences to the per-parcel history (feature_changes)
 * and notifies the followers (`watch-change`, through notify(): in-app, then per preference an
 * instant e-mail or the digest). Followed fields: owners, CF number, area, geometry, removal.
 *
 * The comparison and the history run in one transaction and only then the notifications, each
 * history row keeping `notified` until its notification is written: a retried activity neither
 * repeats history nor loses a notification (notify keys make a repeat a no-op).
 */
import type { Db } from '../db/pool';
import { withTransaction } from '../db/pool';
import type { PrismaClient } from '../db/prisma';
import { errors } from '../errors';
import { notify } from './notify';

/** Only parcels are followed (spec 2.1: TERENURI_ACTIVE is the parcel layer). */
export const WATCHED_LAYER = 'TERENURI_ACTIVE';

/** History field names (the enrichment's keys where it has one). */
export const WATCH_FIELDS = {
  owners: 'PROPRIETARI',
  cf: 'NR_CF',
  area: 'SUPRAFATA',
  geometry: 'GEOMETRIE',
  removed: 'ELIMINATA',
} as const;

/** Fields whose values are personal data (hidden from restricted viewers, never in a notification). */
export const PERSONAL_WATCH_FIELDS: readonly string[] = [WATCH_FIELDS.owners, WATCH_FIELDS.cf];

const FIELD_LABEL: Record<string, string> = {
  PROPRIETARI: 'proprietari',
  NR_CF: 'număr CF',
  SUPRAFATA: 'suprafață',
  GEOMETRIE: 'geometrie',
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

/** Snapshot columns of a stored parcel (the state later syncs are compared with). */
const SNAPSHOT_SELECT = `f.id, f.siruta, f.layer_id, f.object_id, f.cadastral_ref, f.enrichment->>'PROPRIETARI',
  f.enrichment->>'NR_CF', f.area_value, CASE WHEN f.geom IS NULL THEN NULL ELSE md5(ST_AsEWKB(f.geom)) END`;
const SNAPSHOT_INSERT = `INSERT INTO watch_snapshots (feature_id, siruta, layer_id, object_id, cadastral_ref, owners, nr_cf, area_value, geom_hash)`;

/** Follows a parcel or a UAT; following it again answers the existing item (`created: false`). */
export async function addWatch(prisma: PrismaClient, db: Db, userId: string, what: { featureId: string } | { siruta: number }): Promise<{ item: WatchItem; created: boolean }> {
  if ('featureId' in what) {
    const f = await db.query<{ siruta: number; cadastral_ref: string | null; object_id: string; layer_id: string; uat: string | null }>(
      `SELECT f.siruta, f.cadastral_ref, f.object_id, f.layer_id, u.name AS uat FROM gis_features f LEFT JOIN gis_uats u ON u.siruta = f.siruta WHERE f.id = $1`,
      [what.featureId],
    );
    const feature = f.rows[0];
    if (!feature) throw errors.notFound('Parcela nu există în baza de date locală.');
    if (feature.layer_id !== WATCHED_LAYER) throw errors.badRequest('Se pot urmări doar parcele (stratul TERENURI_ACTIVE).', [{ field: 'featureId', problem: 'not a parcel' }]);
    const existing = await prisma.watchlistItem.findFirst({ where: { userId, kind: 'parcel', featureId: what.featureId } });
    if (existing) return { item: toItem(existing), created: false };
    const label = `Parcela ${feature.cadastral_ref ?? `#${feature.object_id}`}${feature.uat ? ` (${feature.uat})` : ''}`;
    const row = await prisma.watchlistItem.create({ data: { userId, kind: 'parcel', siruta: feature.siruta, featureId: what.featureId, label } });
    await db.query(`${SNAPSHOT_INSERT} SELECT ${SNAPSHOT_SELECT} FROM gis_features f WHERE f.id = $1 ON CONFLICT (feature_id) DO NOTHING`, [what.featureId]);
    return { item: toItem(row), created: true };
  }
  const u = await db.query<{ name: string; county: string | null }>(`SELECT name, county FROM gis_uats WHERE siruta = $1`, [what.siruta]);
  const uat = u.rows[0];
  if (!uat) throw errors.notFound('UAT-ul nu există în catalog.');
  const existing = await prisma.watchlistItem.findFirst({ where: { userId, kind: 'uat', siruta: what.siruta } });
  if (existing) return { item: toItem(existing), created: false };
  const row = await prisma.watchlistItem.create({ data: { userId, kind: 'uat', siruta: what.siruta, label: `UAT ${uat.name}${uat.county ? ` (${uat.county})` : ''}` } });
  await db.query(
    `${SNAPSHOT_INSERT} SELECT ${SNAPSHOT_SELECT} FROM gis_features f WHERE f.siruta = $1 AND f.layer_id = $2 ON CONFLICT (feature_id) DO NOTHING`,
    [what.siruta, WATCHED_LAYER],
  );
  return { item: toItem(row), created: true };
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
}

/** A parcel's change history, newest first; personal values nulled when `hidePersonal`. */
export async function featureHistory(prisma: PrismaClient, featureId: string, hidePersonal: boolean): Promise<HistoryItem[]> {
  const rows = await prisma.featureChange.findMany({ where: { featureId }, orderBy: [{ at: 'desc' }, { field: 'asc' }], take: 500 });
  return rows.map((r) => {
    const hide = hidePersonal && PERSONAL_WATCH_FIELDS.includes(r.field);
    return { at: r.at.toISOString(), field: r.field, before: hide ? null : r.before, after: hide ? null : r.after, syncRunId: r.syncRunId };
  });
}

// ---- change detection (the sync and enrichment hook) ---------------------------------------

export type WatchScope = { siruta: number; layerId: string; syncRunId?: string } | { featureIds: readonly string[] };

type DiffRow = {
  feature_id: string;
  siruta: number;
  cadastral_ref: string | null;
  owners: string | null;
  nr_cf: string | null;
  area_value: number | null;
  geom_hash: string | null;
  present: boolean;
  owners_now: string | null;
  cf_now: string | null;
  area_now: number | null;
  geom_now: string | null;
};

const fmtArea = (v: number | null) => (v === null ? null : `${Math.round(v * 100) / 100} m²`);

/** Pure: the history rows of one parcel's comparison (unknown "before" values are not changes). */
export function diffParcel(d: DiffRow): Array<{ field: string; before: string | null; after: string | null }> {
  if (!d.present) return [{ field: WATCH_FIELDS.removed, before: 'activă', after: 'eliminată' }];
  const out: Array<{ field: string; before: string | null; after: string | null }> = [];
  if (d.owners !== null && d.owners_now !== null && d.owners !== d.owners_now) out.push({ field: WATCH_FIELDS.owners, before: d.owners, after: d.owners_now });
  if (d.nr_cf !== null && d.cf_now !== null && d.nr_cf !== d.cf_now) out.push({ field: WATCH_FIELDS.cf, before: d.nr_cf, after: d.cf_now });
  if (d.area_value !== null && d.area_now !== null && Math.abs(d.area_value - d.area_now) >= 0.01) out.push({ field: WATCH_FIELDS.area, before: fmtArea(d.area_value), after: fmtArea(d.area_now) });
  if (d.geom_hash !== null && d.geom_now !== null && d.geom_hash !== d.geom_now) out.push({ field: WATCH_FIELDS.geometry, before: null, after: null });
  return out;
}

/**
 * The hook: one call after a parcel layer's sync closes (domain/landreg/sync/store.ts) and after
 * an enrichment write (domain/enrichment/store.ts). Cheap when nothing in scope is followed.
 */
export async function recordWatchChanges(db: Db, scope: WatchScope): Promise<{ changes: number; notified: number }> {
  const bySync = 'siruta' in scope;
  if (bySync && scope.layerId !== WATCHED_LAYER) return { changes: 0, notified: 0 };
  const where = bySync ? `s.siruta = $1 AND s.layer_id = $2` : `s.feature_id = ANY($1::uuid[])`;
  const params: unknown[] = bySync ? [scope.siruta, scope.layerId] : [scope.featureIds];
  if (!bySync && scope.featureIds.length === 0) return { changes: 0, notified: 0 };
  const any = await db.query(`SELECT 1 FROM watch_snapshots s WHERE ${where} LIMIT 1`, params);
  const uatFollowed = bySync ? (await db.query(`SELECT 1 FROM watchlist WHERE kind = 'uat' AND siruta = $1 LIMIT 1`, [scope.siruta])).rowCount : 0;
  if (!any.rowCount && !uatFollowed) return { changes: 0, notified: 0 };
  const syncRunId = bySync ? (scope.syncRunId ?? null) : null;

  const changes = await withTransaction(async (tx) => {
    const d = await tx.query<DiffRow>(
      `SELECT s.feature_id, s.siruta, s.cadastral_ref, s.owners, s.nr_cf, s.area_value, s.geom_hash,
              f.id IS NOT NULL AS present, f.enrichment->>'PROPRIETARI' AS owners_now, f.enrichment->>'NR_CF' AS cf_now,
              f.area_value AS area_now, CASE WHEN f.geom IS NULL THEN NULL ELSE md5(ST_AsEWKB(f.geom)) END AS geom_now
         FROM watch_snapshots s LEFT JOIN gis_features f ON f.id = s.feature_id
        WHERE ${where}
          AND (f.id IS NULL OR s.owners IS DISTINCT FROM f.enrichment->>'PROPRIETARI' OR s.nr_cf IS DISTINCT FROM f.enrichment->>'NR_CF'
               OR s.area_value IS DISTINCT FROM f.area_value OR s.geom_hash IS DISTINCT FROM md5(ST_AsEWKB(f.geom)))
        FOR UPDATE OF s`,
      params,
    );
    let n = 0;
    for (const row of d.rows) {
      for (const c of diffParcel(row)) {
        await tx.query(
          `INSERT INTO feature_changes (feature_id, siruta, field, before, after, sync_run_id, notified) VALUES ($1, $2, $3, $4, $5, $6, false)`,
          [row.feature_id, row.siruta, c.field, c.before, c.after, syncRunId],
        );
        n++;
      }
      if (row.present) {
        await tx.query(
          `UPDATE watch_snapshots SET owners = $2, nr_cf = $3, area_value = $4, geom_hash = $5, updated_at = now() WHERE feature_id = $1`,
          [row.feature_id, row.owners_now, row.cf_now, row.area_now, row.geom_now],
        );
      } else {
        await tx.query(`DELETE FROM watch_snapshots WHERE feature_id = $1`, [row.feature_id]);
      }
    }
    // Parcels new in a followed UAT are followed from now on.
    if (bySync && uatFollowed) {
      await tx.query(`${SNAPSHOT_INSERT} SELECT ${SNAPSHOT_SELECT} FROM gis_features f WHERE f.siruta = $1 AND f.layer_id = $2 ON CONFLICT (feature_id) DO NOTHING`, params);
    }
    return n;
  }, db);
  const notified = await notifyPendingChanges(db, bySync ? { siruta: scope.siruta } : { featureIds: scope.featureIds });
  return { changes, notified };
}

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

const fieldNames = (list: readonly PendingChange[]) => [...new Set(list.map((c) => FIELD_LABEL[c.field] ?? c.field))];

/**
 * Notifies the followers of history rows not yet notified: a parcel's follower gets one
 * notification per parcel and batch (sync run, or enrichment write); a UAT's follower one per UAT
 * and batch. Values are not repeated in the notification (personal data); the timeline has them.
 */
async function notifyPendingChanges(db: Db, scope: { siruta: number } | { featureIds: readonly string[] }): Promise<number> {
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
  const [watchers, names, refs] = await Promise.all([
    db.query<{ user_id: string; kind: string; siruta: number; feature_id: string | null; label: string }>(
      `SELECT user_id, kind, siruta, feature_id, label FROM watchlist WHERE feature_id = ANY($1::uuid[]) OR (kind = 'uat' AND siruta = ANY($2::int[]))`,
      [featureIds, sirutas],
    ),
    db.query<{ siruta: number; name: string }>(`SELECT siruta, name FROM gis_uats WHERE siruta = ANY($1::int[])`, [sirutas]),
    db.query<{ feature_id: string; cadastral_ref: string | null }>(
      `SELECT DISTINCT ON (feature_id) feature_id, cadastral_ref FROM (
         SELECT id AS feature_id, cadastral_ref FROM gis_features WHERE id = ANY($1::uuid[])
         UNION ALL SELECT feature_id, cadastral_ref FROM watch_snapshots WHERE feature_id = ANY($1::uuid[])) x
       ORDER BY feature_id`,
      [featureIds],
    ),
  ]);
  const uatName = new Map(names.rows.map((x) => [x.siruta, x.name]));
  const refOf = new Map(refs.rows.map((x) => [x.feature_id, x.cadastral_ref]));
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
      const res = await notify(db, {
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
      const res = await notify(db, {
        userId: w.user_id,
        type: 'watch-change',
        title: `${parcels === 1 ? 'O parcelă urmărită s-a modificat' : `${parcels} parcele urmărite s-au modificat`} în ${uat}`,
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

