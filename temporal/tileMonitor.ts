/**
 * The tile infrastructure monitor as a service: what the monitor page and
 * `GET /api/geoportal/tiles/status` show, and the rebuild they start. The Remix page and the
 * route both call it (no HTTP hop, no route module imported by web code).
 */
import { config } from '../domain/config';
import { errors } from '../domain/errors';
import { archiveInfo, type ArchiveInfo, type BuildRecord, type TilesService } from '../domain/tiles/service';
import { getTemporalClient } from './client';
import { requestTileArchiveRebuild, tileRebuildJob, type RebuildJobState } from './tileArchive';

export interface TileInfraStatus {
  archive: (ArchiveInfo & { url: string; ageSeconds: number }) | null;
  lastBuild: BuildRecord | null;
  builds: BuildRecord[];
  /** The rebuild job (one id for the API, the monitor and the syncs). */
  job: RebuildJobState | null;
  tiles: {
    mode: 'postgis' | 'proxy';
    /** Administrators only (null for others), like the webhook's URL. */
    serverUrl: string | null;
    /** Who builds the overview archive: this stack's workflow, or an outside tile server. */
    builder: 'ours' | 'webhook';
    /** The outside builder's webhook (administrators only); null when the builder is ours. */
    webhookUrl: string | null;
    cache: { entries: number; bytes: number; hits: number; misses: number };
    versions: Record<string, number>;
  };
  checkedAt: string;
}

/** What a failed build says to a user who is not an administrator. */
export const BUILD_FAILED_PLAIN = 'Construirea nu a reușit; administratorii au detaliile.';

/**
 * Everything the tile infrastructure monitor shows. Internal addresses and the builder's error
 * output (server paths, tool messages) reach administrators only (issue 30); everyone else gets
 * the facts in plain Romanian.
 */
export async function tileInfraStatus(tiles: TilesService, { technical }: { technical: boolean }): Promise<TileInfraStatus> {
  const [info, builds, versions, job] = await Promise.all([
    archiveInfo(),
    tiles.recentBuilds(10),
    tiles.versions(),
    getTemporalClient().then((c) => tileRebuildJob(c)),
  ]);
  const shown = technical ? builds : builds.map((b) => (b.error ? { ...b, error: BUILD_FAILED_PLAIN } : b));
  return {
    archive: info && {
      ...info,
      url: `${config.app.publicUrl.replace(/\/+$/, '')}/tiles/overview.pmtiles`,
      ageSeconds: Math.max(0, Math.round((Date.now() - Date.parse(info.lastModified)) / 1000)),
    },
    lastBuild: shown[0] ?? null,
    builds: shown,
    job: job && !technical && job.error ? { ...job, error: BUILD_FAILED_PLAIN } : job,
    tiles: {
      mode: config.tiles.serverUrl ? 'proxy' : 'postgis',
      serverUrl: technical ? config.tiles.serverUrl || null : null,
      builder: config.tiles.embeddedBuilder ? 'ours' : 'webhook',
      // Our own builder is a child workflow: the webhook route it no longer calls is not news.
      webhookUrl: technical && !config.tiles.embeddedBuilder ? config.tiles.rebuildWebhookUrl : null,
      cache: tiles.cacheStats(),
      versions: Object.fromEntries([...versions].map(([k, v]) => [k, v.version])),
    },
    checkedAt: new Date().toISOString(),
  };
}

/** Starts the rebuild job; 409 `already_running` (with its jobId) when one runs. */
export async function startTileRebuild(): Promise<{ jobId: string; progressUrl: string }> {
  const r = await requestTileArchiveRebuild(await getTemporalClient());
  if (r.alreadyRunning) {
    throw errors.conflict('already_running', 'Reconstruirea arhivei de hărți rulează deja.', { jobId: r.jobId });
  }
  return { jobId: r.jobId, progressUrl: '/api/geoportal/tiles/status' };
}
