/**
 * PDF compression bench (issue 20 item 7; `npm run bench -- pdf`, or alone against a running
 * stack: `npx tsx scripts/bench/90-pdf.ts`). Prints JSON lines {"bench":"pdf"}.
 *
 * On the generated corpus (test/helpers/pdfFixtures.ts: a scanned-style raster page of several MB
 * and a three-page text PDF), the size and time of every level: the local ones (balanced, high,
 * extreme: Ghostscript then qpdf, in this process) and the cloud ones (recommended, extreme, low:
 * through the PDF service simulator over HTTP, never-larger rule applied), side by side with the
 * reference measured in the same run: plain `gs -sDEVICE=pdfwrite -dPDFSETTINGS=/ebook`.
 * Each measurement is the median of RUNS runs. Goal: balanced at least as small as /ebook and no
 * slower than 1.5 × its time.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { config } from '../../domain/config';
import { processStore } from '../../domain/db/store';
import { CLOUD_LEVELS, LOCAL_LEVELS } from '../../domain/pdf/rules';
import { processServices } from '../../temporal/services';
import { makePdfCorpus } from '../../test/helpers/pdfFixtures';
import { jsonLine, note, percentiles } from './_shared';

const BENCH = 'pdf';
const RUNS = Number(process.env.PDF_BENCH_RUNS ?? 3);
const GOAL_TIME_RATIO = 1.5;
const run = promisify(execFile);
const say = (m: string) => note(BENCH, m);

interface Measure {
  bytes: number;
  ms: number;
}

/** Median time of RUNS runs of `once` (the size is the same every run). */
async function measure(once: (i: number) => Promise<number>): Promise<Measure> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    bytes = await once(i);
    times.push(performance.now() - t0);
  }
  return { bytes, ms: percentiles(times).p50 };
}

const sizeOf = async (file: string) => (await fs.stat(file)).size;

function emit(file: string, what: string, m: Measure, original: number): void {
  jsonLine(BENCH, `${file}.${what}.bytes`, m.bytes, 'bytes');
  jsonLine(BENCH, `${file}.${what}.ms`, m.ms, 'ms');
  jsonLine(BENCH, `${file}.${what}.saving`, (1 - m.bytes / original) * 100, '%');
}

async function main(): Promise<void> {
  // The cloud levels go through the outside-call base, paced on the store's shared schedule.
  const { pdf } = processServices(processStore(), { mail: null });
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-pdf-'));
  try {
    say('generating the corpus…');
    const corpus = await makePdfCorpus(work);
    const goals: boolean[] = [];
    for (const [name, file] of [['scan', corpus.scan], ['text', corpus.text]] as const) {
      const original = await sizeOf(file);
      const pdfFile = { path: file, fileName: path.basename(file), size: original };
      jsonLine(BENCH, `${name}.original.bytes`, original, 'bytes');
      say(`${name}: ${original} bytes; reference gs /ebook…`);
      const ebookOut = path.join(work, `${name}-ebook.pdf`);
      const ebook = await measure(async () => {
        await run(config.pdf.gs, ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', '-dCompatibilityLevel=1.5', '-dPDFSETTINGS=/ebook', `-sOutputFile=${ebookOut}`, file]);
        return sizeOf(ebookOut);
      });
      emit(name, 'reference_gs_ebook', ebook, original);

      const local: Record<string, Measure> = {};
      for (const level of LOCAL_LEVELS) {
        say(`${name}: local ${level}…`);
        local[level] = await measure(async (i) => {
          const dir = await fs.mkdtemp(path.join(work, `${name}-${level}-${i}-`));
          return (await pdf.compressAt(pdfFile, { mode: 'local', level }, dir)).compressedSize;
        });
        emit(name, `local_${level}`, local[level], original);
      }
      const cloud: Record<string, Measure> = {};
      for (const level of CLOUD_LEVELS) {
        say(`${name}: cloud ${level}…`);
        const m = (cloud[level] = await measure(async (i) => {
          const dir = await fs.mkdtemp(path.join(work, `${name}-cloud-${level}-${i}-`));
          return (await pdf.compressAt(pdfFile, { mode: 'cloud', level }, dir)).compressedSize;
        }));
        emit(name, `cloud_${level}`, m, original);
      }

      const b = local.balanced;
      const sizeOk = b.bytes <= ebook.bytes;
      const ratio = b.ms / ebook.ms;
      jsonLine(BENCH, `${name}.balanced_vs_ebook.size_ratio`, b.bytes / ebook.bytes, 'x');
      jsonLine(BENCH, `${name}.balanced_vs_ebook.time_ratio`, ratio, 'x');
      jsonLine(BENCH, `${name}.goal_balanced_le_ebook_size`, sizeOk, 'bool');
      jsonLine(BENCH, `${name}.goal_balanced_time_le_1.5x_ebook`, ratio <= GOAL_TIME_RATIO, 'bool');
      goals.push(sizeOk && ratio <= GOAL_TIME_RATIO);
      // Levels differ in how they treat images; a text PDF has none, so only the scan is ranked.
      if (name === 'scan') {
        jsonLine(BENCH, 'scan.local_levels_in_order', local.extreme.bytes < local.high.bytes && local.high.bytes < local.balanced.bytes, 'bool');
        jsonLine(BENCH, 'scan.cloud_levels_in_order', cloud.extreme.bytes < cloud.recommended.bytes && cloud.recommended.bytes < cloud.low.bytes, 'bool');
      }
    }
    jsonLine(BENCH, 'goal_met', goals.every(Boolean), 'bool');
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  },
);
