/**
 * The fixed cost per UAT (issue 32 item 3; `npm run bench -- county`): a county's UATs synced
 * through the real `countySync` workflow on the bench stack's workers, with the land-registry
 * simulator at `national` scale (about 400 parcels a UAT; switched for this bench and put back
 * after), then refreshed with nothing changed, alternately the way before (`perUatPlan`: a
 * `uatSync` child per UAT) and with the county plan, BENCH_REPEATS rounds (default 1; medians
 * printed). Prints each refresh's seconds and seconds per UAT, the portal calls per UAT (a
 * feature download fails the bench), and where a UAT's time goes, read from the Temporal histories of the
 * refresh (every child workflow and activity, summed over the county and divided by its UATs):
 * the wait of each activity in its task queue (for `landreg`, the queue's activity rate), its
 * run, and the child workflows' start and completion round trips. BENCH_COUNTY (default Cluj)
 * names the county.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { performance } from 'node:perf_hooks';
import { closePool, getPool } from '../../domain/db/pool';
import { closeTemporalClient, getTemporalClient } from '../../temporal/client';
import { start } from '../../temporal/jobs';
import type { countySync } from '../../workflows/countySync';
import { benchServices, jsonLine, note as say, simJson } from './_shared';

const BENCH = 'county-refresh';
const COUNTY = process.env.BENCH_COUNTY ?? 'Cluj';
const REPEATS = Math.max(1, Number(process.env.BENCH_REPEATS ?? 1));
const note = (m: string) => say(BENCH, m);


const ms = (t: Parameters<typeof optionalTsToMs>[0]) => optionalTsToMs(t) ?? NaN;

/** Seconds summed over the whole refresh, by component. */
class Breakdown {
  readonly total = new Map<string, number>();
  add(what: string, millis: number): void {
    if (Number.isFinite(millis)) this.total.set(what, (this.total.get(what) ?? 0) + millis / 1000);
  }
}

/** Walks a workflow and its children: activity queue waits and runs, child start and completion latencies. */
async function walk(handle: WorkflowHandle, b: Breakdown, kind = 'countySync'): Promise<void> {
  const client = await getTemporalClient();
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = new Map<string, { type: string; at: number }>();
  const started = new Map<string, number>();
  const childInitiated = new Map<string, number>();
  const children: Array<Promise<void>> = [];
  let workflowTaskMs = 0;
  const first = ms(events[0]?.eventTime);
  const last = ms(events[events.length - 1]?.eventTime);
  let lastScheduledWt = NaN;
  for (const e of events) {
    const at = ms(e.eventTime);
    const id = String(e.eventId);
    if (e.workflowTaskScheduledEventAttributes) lastScheduledWt = at;
    if (e.workflowTaskCompletedEventAttributes) workflowTaskMs += at - lastScheduledWt;
    if (e.activityTaskScheduledEventAttributes) scheduled.set(id, { type: e.activityTaskScheduledEventAttributes.activityType?.name ?? '?', at });
    if (e.activityTaskStartedEventAttributes) {
      const s = scheduled.get(String(e.activityTaskStartedEventAttributes.scheduledEventId));
      if (s) b.add(`${s.type}: wait in queue`, at - s.at);
      started.set(String(e.activityTaskStartedEventAttributes.scheduledEventId), at);
    }
    if (e.activityTaskCompletedEventAttributes) {
      const sid = String(e.activityTaskCompletedEventAttributes.scheduledEventId);
      const s = scheduled.get(sid);
      if (s) b.add(`${s.type}: run`, at - (started.get(sid) ?? at));
    }
    if (e.startChildWorkflowExecutionInitiatedEventAttributes) childInitiated.set(id, at);
    const child = e.childWorkflowExecutionStartedEventAttributes;
    if (child?.workflowExecution?.workflowId) {
      const type = child.workflowType?.name ?? '?';
      b.add(`${type}: child start`, at - (childInitiated.get(String(child.initiatedEventId)) ?? at));
      children.push(walk(client.workflow.getHandle(child.workflowExecution.workflowId, child.workflowExecution.runId ?? undefined), b, type));
    }
  }
  // Workflow tasks (scheduled → completed) of this workflow: Temporal round trips and our code.
  b.add(`${kind}: workflow tasks`, workflowTaskMs);
  if (kind === 'layerSync') b.add('layerSync: whole', last - first);
  await Promise.all(children);
}

async function runCounty(perUatPlan = false): Promise<{ ms: number; result: Awaited<ReturnType<typeof countySync>>; handle: WorkflowHandle }> {
  const t0 = performance.now();
  const { handle } = await start('sync-county', { county: COUNTY, trigger: 'county', requestTileRebuild: false, perUatPlan }, { portalStarts: benchServices().landreg.portalStarts });
  const result = await handle.result();
  return { ms: performance.now() - t0, result, handle };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The two ways of a zero-change refresh, measured alternately in the same run. */
const PATHS = [
  { label: 'per-UAT plan (before)', perUatPlan: true },
  { label: 'county plan', perUatPlan: false },
] as const;

async function main(): Promise<void> {
  const db = getPool();
  const info = await simJson<{ scale: string; seed: number }>('GET', '/__sim/info');
  if (info.scale !== 'national') {
    note(`simulator at ${info.scale} scale: switching to national for this bench`);
    await simJson('POST', '/__sim/reset', { scale: 'national', seed: info.seed });
  }
  try {
    if ((await db.query(`SELECT 1 FROM gis_uats WHERE f_norm(county) = f_norm($1) LIMIT 1`, [COUNTY])).rowCount === 0) {
      note('filling the UAT catalogue');
      await benchServices().landreg.refreshUatCatalogue();
    }
    const uats = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_uats WHERE f_norm(county) = f_norm($1)`, [COUNTY])).rows[0].n;
    const synced = (
      await db.query<{ n: number }>(
        `SELECT count(DISTINCT r.siruta)::int AS n FROM gis_sync_runs r JOIN gis_uats u USING (siruta)
          WHERE f_norm(u.county) = f_norm($1) AND r.status = 'done' AND r.layer_id = 'TERENURI_ACTIVE'`,
        [COUNTY],
      )
    ).rows[0].n;
    if (synced < uats) {
      note(`first load of ${COUNTY} (${uats} UATs)`);
      const first = await runCounty();
      jsonLine(BENCH, 'first load', first.ms / 1000, 's');
      jsonLine(BENCH, 'first load features', first.result.added, 'features');
    }

    const perUat: Record<string, number[]> = {};
    for (let round = 0; round < REPEATS; round++) {
      for (const path of PATHS) {
        await simJson('DELETE', '/__sim/requests');
        note(`zero-change refresh of ${COUNTY}, ${path.label}, round ${round + 1}/${REPEATS}`);
        const refresh = await runCounty(path.perUatPlan);
        if (refresh.result.added + refresh.result.removed + refresh.result.changed !== 0) throw new Error(`the refresh found changes: ${refresh.result.summary}`);
        const n = refresh.result.uats.length;
        const portal = await simJson<{ counts: Record<string, number> }>('GET', '/__sim/requests');
        // Every layer query once (the simulator counts a one-UAT query a second time under `:<siruta>`).
        const calls = Object.entries(portal.counts).filter(([k]) => /^query:[^:]+:[^:]+$/.test(k)).reduce((sum, [, v]) => sum + v, 0);
        const downloads = Object.entries(portal.counts).filter(([k]) => /^query:features:[^:]+$/.test(k)).reduce((sum, [, v]) => sum + v, 0);
        if (downloads !== 0) throw new Error(`the zero-change refresh downloaded ${downloads} feature pages`);
        jsonLine(BENCH, `${path.label}: UATs`, n, 'UATs');
        jsonLine(BENCH, `${path.label}: zero-change refresh`, refresh.ms / 1000, 's');
        jsonLine(BENCH, `${path.label}: zero-change refresh per UAT`, refresh.ms / 1000 / n, 's');
        jsonLine(BENCH, `${path.label}: portal queries per UAT`, calls / n, 'requests');
        (perUat[path.label] ??= []).push(refresh.ms / 1000 / n);
        if (round === REPEATS - 1) {
          const b = new Breakdown();
          await walk(refresh.handle, b);
          for (const [what, sec] of [...b.total.entries()].sort((x, y) => y[1] - x[1])) jsonLine(BENCH, `${path.label}: per UAT: ${what}`, sec / n, 's');
        }
      }
    }
    for (const path of PATHS) jsonLine(BENCH, `${path.label}: zero-change refresh per UAT, median of ${REPEATS}`, median(perUat[path.label]), 's');
  } finally {
    if (info.scale !== 'national') await simJson('POST', '/__sim/reset', { scale: info.scale, seed: info.seed });
    await closeTemporalClient();
    await closePool();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
