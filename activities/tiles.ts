/**
 * Activities of the tile archive: the rebuild's choice of builder, its webhook call and archive
 * stamp for an outside builder (store queue; HTTP and one S3 HEAD; the webhook address and token
 * are dependencies so a test can aim them at its own server), and the overview build itself
 * (exports queue: GDAL and the converter).
 */
import { ApplicationFailure } from '@temporalio/common';
import { config } from '../domain/config';
import { Context } from '@temporalio/activity';
import type { ArchiveStamp, RebuildRequest } from '../domain/tiles/jobTypes';
import { archiveInfo, type TilesService } from '../domain/tiles/service';
import { keptAlive } from './heartbeat';

export interface TileActivityDeps {
  /** The outside tile server's rebuild webhook; null when the builder is ours (no TILE_REBUILD_WEBHOOK_URL). */
  webhook: { url: string; token: string } | null;
}

const WEBHOOK_TIMEOUT_MS = 30_000;

const configuredWebhook = (): TileActivityDeps['webhook'] =>
  config.tiles.embeddedBuilder ? null : { url: config.tiles.rebuildWebhookUrl, token: config.tiles.rebuildWebhookToken };

export function createTileActivities(deps: TileActivityDeps = { webhook: configuredWebhook() }) {
  return keptAlive({
    /** Who builds the archive: our build workflow, or an outside tile server behind its webhook. */
    async archiveBuilder(): Promise<'ours' | 'webhook'> {
      return deps.webhook ? 'webhook' : 'ours';
    },

    async archiveStamp(): Promise<ArchiveStamp | null> {
      const info = await archiveInfo();
      return info && { lastModified: info.lastModified, etag: info.etag };
    },

    /** 2xx = a build started; 409 = one already runs, a valid state (spec 3.6, section 7). */
    async callRebuildWebhook(): Promise<RebuildRequest> {
      if (!deps.webhook) throw ApplicationFailure.nonRetryable('No outside tile server is configured (TILE_REBUILD_WEBHOOK_URL)', 'WebhookRejectedError');
      const res = await fetch(deps.webhook.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${deps.webhook.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ archive: config.tiles.archiveKey }),
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      await res.body?.cancel();
      if (res.status === 409) return 'already_running';
      if (res.ok) return 'started';
      const message = `Tile rebuild webhook answered HTTP ${res.status}`;
      // A refused call (bad token, wrong URL) will not heal by retrying; a 5xx may.
      if (res.status >= 400 && res.status < 500) throw ApplicationFailure.nonRetryable(message, 'WebhookRejectedError');
      throw new Error(message);
    },
  });
}

export type TileActivities = ReturnType<typeof createTileActivities>;

/** Heartbeat cadence while the build's tools run; the workflow's heartbeatTimeout is a minute. */
const BUILD_HEARTBEAT_MS = 5_000;

/** exports queue: the overview build (workflows/overviewArchiveBuild.ts). */
export function createTileBuildActivities(tiles: TilesService) {
  return {
    async buildOverviewArchive(): Promise<{ buildId: string }> {
      const ctx = Context.current();
      let phase = 'start';
      const beat = setInterval(() => ctx.heartbeat({ phase }), BUILD_HEARTBEAT_MS);
      try {
        const buildId = await tiles.buildOverviewArchive({ onProgress: (p) => (phase = p.phase) });
        return { buildId };
      } finally {
        clearInterval(beat);
      }
    },
  };
}

export type TileBuildActivities = ReturnType<typeof createTileBuildActivities>;
