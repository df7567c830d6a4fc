/**
 * The status report at the end of a weekend sync session (spec 6), as a pure function of the
 * queue and the session's tallies: a subject, a plain-text body and an HTML body (Romanian).
 */
import type { QueueItem } from './weekend';
import { STEP_LABELS, WEEKEND_STEPS, type StepState } from './weekendSteps';

export interface SessionTally {
  startedAt: number;
  endedAt: number;
  stepsRun: number;
  stepsFailed: number;
  featuresAdded: number;
  tileRebuildRequested: boolean;
}

const STATE_LABELS: Record<StepState, string> = {
  pending: 'în așteptare',
  running: 'în lucru',
  done: 'gata',
  error: 'eroare',
  skipped: 'sărit',
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function when(ms: number): string {
  return new Intl.DateTimeFormat('ro-RO', { timeZone: 'Europe/Bucharest', dateStyle: 'short', timeStyle: 'short' }).format(new Date(ms));
}

export function weekendReport(queue: readonly QueueItem[], tally: SessionTally): { subject: string; text: string; html: string } {
  const complete = queue.filter((q) => WEEKEND_STEPS.every((s) => q.steps[s] === 'done')).length;
  const withErrors = queue.filter((q) => WEEKEND_STEPS.some((s) => q.steps[s] === 'error'));
  const subject =
    withErrors.length === 0
      ? `Sincronizarea de weekend s-a încheiat: ${complete}/${queue.length} localități complete`
      : `Sincronizarea de weekend s-a încheiat cu erori: ${withErrors.length} localități cu erori`;
  const head = [
    `Sesiune: ${when(tally.startedAt)} – ${when(tally.endedAt)}`,
    `Pași rulați: ${tally.stepsRun}, dintre care cu erori: ${tally.stepsFailed}`,
    `Obiecte adăugate: ${tally.featuresAdded}${tally.tileRebuildRequested ? ' (reconstruirea arhivei de dale a fost cerută)' : ''}`,
  ];
  const lines = queue.map((q) => `${q.name} (${q.siruta}): ${WEEKEND_STEPS.map((s) => `${STEP_LABELS[s]} ${STATE_LABELS[q.steps[s]]}`).join(', ')}${q.lastError ? ` — ${q.lastError}` : ''}`);
  const text = [...head, '', ...lines].join('\n');
  const rows = queue
    .map(
      (q) =>
        `<tr><td>${escapeHtml(q.name)} (${q.siruta})</td>${WEEKEND_STEPS.map((s) => `<td>${STATE_LABELS[q.steps[s]]}</td>`).join('')}<td>${escapeHtml(q.lastError ?? '')}</td></tr>`,
    )
    .join('');
  const html =
    head.map((h) => `<p>${escapeHtml(h)}</p>`).join('') +
    `<table><thead><tr><th>Localitate</th>${WEEKEND_STEPS.map((s) => `<th>${STEP_LABELS[s]}</th>`).join('')}<th>Eroare</th></tr></thead><tbody>${rows}</tbody></table>`;
  return { subject, text, html };
}
