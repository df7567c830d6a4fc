/**
 * Pure rules and types of the CF area (no I/O: the `cfOrderBatch` workflow imports them, and
 * domain/areaDeps.ts names the portal's account source).
 */
import type { NotifyInput } from '../notifications/rules';
import { countOf } from '../text/plural';

export interface CfCredentials {
  username: string;
  password: string;
}

/** Where the account in use is read from. */
export interface CfAccountSource {
  /** The cfportal_sessions row naming the connected account ('shared'; a test run has its own). */
  slot: string;
  /** The account used while none is connected. */
  configured: CfCredentials;
}

/** An extract's state as the UI shows it (CONTRACT.md section 3): processing, valid until expiresAt, expired (or failed). */
export type CfUiState = 'processing' | 'valid' | 'expired' | 'failed';

const PROCESSING = ['pending', 'cart', 'submitted', 'processing', 'downloading'];

export function uiState(status: string, expiresAt: Date | null, now = new Date()): CfUiState {
  if (PROCESSING.includes(status)) return 'processing';
  if (status === 'completed') return expiresAt && expiresAt.getTime() <= now.getTime() ? 'expired' : 'valid';
  return 'failed';
}

export interface ReadyExtract {
  extractId: string;
  userId: string | null;
  nrCadastral: string;
  uatName: string | null;
}

const parcelOf = (e: ReadyExtract) => `${e.nrCadastral}${e.uatName ? ` (${e.uatName})` : ''}`;

/**
 * The `cf-extract-ready` notices of a finished batch (issue 30): one per orderer and batch, not one
 * per extract, naming every parcel; keyed by the batch, so a retried notify step writes nothing
 * twice. One parcel links straight to it in the epay tab, several to the tab's order list.
 */
export function batchReadyNotices(orderId: string, stored: readonly ReadyExtract[]): NotifyInput[] {
  const byUser = new Map<string, ReadyExtract[]>();
  for (const e of stored) {
    if (!e.userId) continue;
    byUser.set(e.userId, [...(byUser.get(e.userId) ?? []), e]);
  }
  return [...byUser].map(([userId, extracts]) => {
    const one = extracts.length === 1 ? extracts[0] : null;
    return {
      userId,
      type: 'cf-extract-ready',
      title: one ? `Extras CF gata: ${one.nrCadastral}` : `${countOf(extracts.length, 'extras CF gata', 'extrase CF gata')}`,
      body: one
        ? `Extrasul de carte funciară pentru parcela ${parcelOf(one)} este disponibil 30 de zile.`
        : `Extrasele de carte funciară pentru parcelele ${extracts.map(parcelOf).join(', ')} sunt disponibile 30 de zile.`,
      link: one ? `/parcel-sync?tab=epay&cad=${encodeURIComponent(one.nrCadastral)}` : '/parcel-sync?tab=epay',
      idempotencyKey: `cf-extract-ready:${orderId}:${userId}`,
    };
  });
}
