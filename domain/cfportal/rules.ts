/**
 * Pure rules of the CF order pipeline (no I/O: the `cfOrderBatch` workflow imports them).
 */
import type { NotifyInput } from '../notifications/notify';
import { countOf } from '../text/plural';

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
