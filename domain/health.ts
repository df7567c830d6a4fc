/**
 * Live checks of the infrastructure the service stands on, shown on the home page's health line
 * (web/app/lib/health.server.ts, without an HTTP hop), answered by GET /api/health and used by the
 * stack launcher. Each probe is bounded by a timeout so a dead dependency shows as red instead of
 * hanging the page.
 */
import { lastBackup } from './backup/service';
import type { Db } from './db/pool';
import { lastPortalPing } from './landreg/service';
import { mailTransport } from './mail/transport';
import { checkBuckets } from './storage/service';

export interface ProbeResult {
  ok: boolean;
  ms: number;
  detail?: string;
}

/** A check as health answers it: the probe, and since when it is in that state. */
export interface CheckResult extends ProbeResult {
  /** When this process first saw the check in its present state (it came up, or went down). */
  since: string;
}

export interface BackupCheck extends CheckResult {
  /** End of the newest good backup (null: none yet). */
  lastAt: string | null;
  ageSeconds: number | null;
}

export async function probe(fn: () => Promise<string | void>, timeoutMs = 3000): Promise<ProbeResult> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const detail = await Promise.race([
      fn(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true, ms: Date.now() - started, ...(detail ? { detail } : {}) };
  } catch (err) {
    return { ok: false, ms: Date.now() - started, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

export type CheckKey = 'database' | 'temporal' | 'storage' | 'mail' | 'portal';

export interface InfrastructureHealth {
  ok: boolean;
  checkedAt: string;
  checks: Record<CheckKey, CheckResult> & { backup: BackupCheck };
}

/** State changes seen by this process: a check's `since` moves only when its `ok` flips. */
const transitions = new Map<string, { ok: boolean; since: string }>();
function withSince<P extends ProbeResult>(key: string, p: P, now: string): P & { since: string } {
  const last = transitions.get(key);
  if (!last || last.ok !== p.ok) transitions.set(key, { ok: p.ok, since: now });
  return { ...p, since: transitions.get(key)!.since };
}

/**
 * The mail server's check, answered from its last probe for a minute: each open home page asks
 * for health every 15 s, and each verify is a new SMTP connection to the office's relay, which
 * a provider counts (and throttles) like any client's. One probe runs at a time.
 */
const MAIL_PROBE_FRESH_MS = 60_000;
let mailChecked: { at: number; result: Promise<ProbeResult> } | undefined;
function mailProbe(): Promise<ProbeResult> {
  if (!mailChecked || Date.now() - mailChecked.at >= MAIL_PROBE_FRESH_MS) {
    mailChecked = {
      at: Date.now(),
      result: probe(async () => {
        await mailTransport().verify();
        return 'SMTP';
      }),
    };
  }
  return mailChecked.result;
}

/** The portal as the 3-minute health ping (spec 3.1) last found it; no ping yet is no outage. */
async function portalProbe(db: Db): Promise<string> {
  const ping = await lastPortalPing(db);
  if (!ping?.at) return 'neverificat încă';
  const at = ping.at.toISOString().slice(11, 16);
  if (ping.maintenance) throw new Error(`în mentenanță (verificat la ${at} UTC)`);
  if (!ping.available) throw new Error(`nu răspunde (${ping.consecutiveFailures} verificări eșuate la rând, ultima la ${at} UTC)`);
  return `disponibil (verificat la ${at} UTC)`;
}

/**
 * The probes whose failure text is a library's own (a driver's or a client's message: an internal
 * address, a database user name, a server's banner): shown to administrators, who can act on it.
 * The portal's and the backup's texts are the service's own Romanian and go to everyone.
 */
const TECHNICAL_PROBES = ['database', 'temporal', 'storage', 'mail'] as const;
const FAILURE_FOR_EVERYONE = 'Nu răspunde; detaliile le văd administratorii.';

/**
 * `db`: the caller's store's pool; `checkTemporal` is temporal/client.ts's, passed in: this layer
 * does not import the client. `technical`: the viewer is an administrator (TECHNICAL_PROBES).
 */
export async function infrastructureHealth(db: Db, checkTemporal: () => Promise<string>, opts: { technical: boolean }): Promise<InfrastructureHealth> {
  let backupState: Awaited<ReturnType<typeof lastBackup>> | null = null;
  const [database, temporal, storage, mail, portal, backup] = await Promise.all([
    probe(async () => {
      const r = await db.query<{ v: string }>(`SELECT postgis_lib_version() AS v`);
      return `PostGIS ${r.rows[0].v}`;
    }),
    probe(() => checkTemporal()),
    probe(checkBuckets),
    mailProbe(),
    probe(() => portalProbe(db)),
    probe(async () => {
      backupState = await lastBackup(undefined, undefined, db);
      const b = backupState;
      if (b.pending) return 'nicio copie încă: prima se face la 02:30 sau când o pornește un administrator';
      if (!b.lastAt) throw new Error('nicio copie de siguranță reușită încă');
      const hours = Math.floor((b.ageSeconds ?? 0) / 3600);
      if (!b.ok) throw new Error(`ultima copie reușită e veche de ${hours} h`);
      return `ultima copie acum ${hours} h`;
    }),
  ]);
  const checkedAt = new Date().toISOString();
  const b = backupState as Awaited<ReturnType<typeof lastBackup>> | null;
  const checks = {
    database: withSince('database', database, checkedAt),
    temporal: withSince('temporal', temporal, checkedAt),
    storage: withSince('storage', storage, checkedAt),
    mail: withSince('mail', mail, checkedAt),
    portal: withSince('portal', portal, checkedAt),
    backup: withSince('backup', { ...backup, lastAt: b?.lastAt ?? null, ageSeconds: b?.ageSeconds ?? null }, checkedAt),
  };
  if (!opts.technical) for (const key of TECHNICAL_PROBES) if (!checks[key].ok) checks[key] = { ...checks[key], detail: FAILURE_FOR_EVERYONE };
  return { ok: Object.values(checks).every((c) => c.ok), checkedAt, checks };
}
