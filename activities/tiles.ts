/**
 * Activities of the tile archive rebuild (spec 3.6): call the outbound webhook, read the
 * archive's last-modified stamp. Thin: HTTP and one S3 HEAD. The webhook address and token are
 * dependencies so a test can aim them at its own server.
 */
import { ApplicationFailure } from '@temporalio/common';
import { config } from '../domain/config';
import { archiveInfo } from '../domain/tiles/archiveStore';

export interface TileActivityDeps {
  webhookUrl: string;
  webhookToken: string;
}

export type WebhookOutcome = 'started' | 'already_running';

/** What identifies one version of the archive; null when it does not exist. */
export interface ArchiveStamp {
  lastModified: string;
  etag: string;
}

const WEBHOOK_TIMEOUT_MS = 30_000;

export function createTileActivities(
  deps: TileActivityDeps = { webhookUrl: config.tiles.rebuildWebhookUrl, webhookToken: config.tiles.rebuildWebhookToken },
) {
  return {
    async archiveStamp(): Promise<ArchiveStamp | null> {
      const info = await archiveInfo();
      return info && { lastModified: info.lastModified, etag: info.etag };
    },

    /** 2xx = a build started; 409 = one already runs, a valid state (spec 3.6, section 7). */
    async callRebuildWebhook(): Promise<WebhookOutcome> {
      const res = await fetch(deps.webhookUrl, {
        method: 'POST',
        headers: { Authorization: `Bearer ${deps.webhookToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ archive: config.tiles.archiveKey }),
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      await res.body?.cancel();
      if (res.status === 409) return 'already_running';
      if (res.ok) return 'started';
      const message = `Tile rebuild webhook answered HTTP ${res.status}`;
      // A refused call (bad token, wrong URL) will not heal by retrying; a 5xx may.
      if (res.status >= 400 && res.status < 500) throw ApplicationFailure.nonRetryable(message, 'WebhookRejected');
      throw new Error(message);
    },
  };
}

export type TileActivities = ReturnType<typeof createTileActivities>;
