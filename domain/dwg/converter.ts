/**
 * The main service's side of the DWG sidecar: sends a DWG on disk to `POST /convert`, writes the
 * DXF next to it, and turns every way that can go wrong into an AppError with a Romanian message.
 * Only HTTP crosses this line; LibreDWG (GPL-3.0) is never imported by the main service.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { config } from '../config';
import { AppError, errors } from '../errors';
import { dwgVersionOfFile } from './format';
import { parseEntityTypes } from './names';

export interface DxfConversion {
  /** DWG version magic of the upload, e.g. AC1015. */
  dwgVersion: string;
  entities: number;
  entityTypes: Record<string, number>;
  /** LibreDWG's recoverable error bits (0 for a clean read). */
  warnings: number;
  dxfSize: number;
}

const NOT_DWG = () =>
  new AppError(422, 'not_dwg', 'Fișierul încărcat nu este un desen DWG.', {
    hint: 'Alegeți un fișier .dwg salvat din AutoCAD sau dintr-un program compatibil.',
  });

const UNAVAILABLE = (cause?: unknown) =>
  new AppError(503, 'dwg_converter_unavailable', 'Serviciul de conversie DWG nu este disponibil momentan.', {
    hint: 'Încercați din nou peste câteva minute.',
    cause,
  });

async function errorBody(res: Response): Promise<{ error?: string; details?: unknown }> {
  try {
    return (await res.json()) as { error?: string; details?: unknown };
  } catch {
    return {};
  }
}

/** The client left: the sidecar call was cancelled (and with it the conversion). */
export class DwgConversionCancelled extends Error {
  constructor() {
    super('DWG conversion cancelled: the client went away');
    this.name = 'DwgConversionCancelled';
  }
}

/**
 * Converts the DWG at `input` through the sidecar at `sidecarUrl` and writes the DXF to `output`.
 * Aborting `cancel` drops the sidecar connection, which kills the conversion there.
 */
export async function convertDwgToDxf(sidecarUrl: string, input: string, output: string, cancel?: AbortSignal): Promise<DxfConversion> {
  // Checked here too, so an obviously wrong upload never travels to the sidecar.
  const dwgVersion = await dwgVersionOfFile(input);
  if (!dwgVersion) throw NOT_DWG();
  cancel?.throwIfAborted();
  // The sidecar stops a conversion at its own deadline and answers 504; this one only guards
  // against a sidecar that stopped answering altogether (and then the connection's end stops it).
  const deadline = AbortSignal.timeout(config.dwg.timeoutMs + 30_000);
  const signal = cancel ? AbortSignal.any([deadline, cancel]) : deadline;
  const stopped = () => (cancel?.aborted ? new DwgConversionCancelled() : conversionTimeout());
  let res: Response;
  try {
    res = await fetch(`${sidecarUrl}/convert`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: Readable.toWeb(createReadStream(input)) as ReadableStream,
      duplex: 'half',
      signal,
    } as RequestInit);
  } catch (err) {
    if (signal.aborted) throw stopped();
    throw UNAVAILABLE(err);
  }
  if (res.ok && res.body) {
    try {
      await pipeline(Readable.fromWeb(res.body as WebReadableStream), createWriteStream(output));
    } catch (err) {
      if (signal.aborted) throw stopped();
      throw errors.upstream('Serviciul de conversie DWG a întrerupt răspunsul.', (err as Error).message);
    }
    return {
      dwgVersion: res.headers.get('x-dwg-version') ?? dwgVersion,
      entities: Number(res.headers.get('x-dxf-entities') ?? 0),
      entityTypes: parseEntityTypes(res.headers.get('x-dxf-entity-types')),
      warnings: Number(res.headers.get('x-dwg-warnings') ?? 0),
      dxfSize: (await fs.stat(output)).size,
    };
  }
  const body = await errorBody(res);
  if (res.status === 422 && body.error === 'not_dwg') throw NOT_DWG();
  if (res.status === 422) {
    throw new AppError(422, 'dwg_unreadable', 'Desenul DWG este deteriorat sau nu poate fi citit, așa că nu a putut fi convertit în DXF.', {
      hint: 'Deschideți și salvați din nou desenul în programul de proiectare (de preferat ca DWG 2000–2018), apoi reîncercați.',
      details: body.details,
    });
  }
  if (res.status === 504) throw conversionTimeout();
  if (res.status === 429) {
    throw errors.rateLimited(Number(res.headers.get('retry-after')) || 10, 'Serviciul de conversie DWG are prea multe fișiere în lucru; reîncercați în câteva secunde.');
  }
  if (res.status === 413) throw errors.payloadTooLarge('Fișierul depășește dimensiunea maximă permisă.');
  throw errors.upstream('Serviciul de conversie DWG a răspuns cu o eroare.', `sidecar status ${res.status} ${body.error ?? ''}`.trim());
}

function conversionTimeout(): AppError {
  return new AppError(504, 'conversion_timeout', `Conversia a durat mai mult de ${Math.round(config.dwg.timeoutMs / 1000)} de secunde și a fost oprită.`, {
    hint: 'Desenul este prea complex pentru conversie; încercați să-l împărțiți în mai multe fișiere.',
  });
}

/** The sidecar's health, for the system health page and tests. */
export async function dwgConverterHealth(sidecarUrl: string): Promise<{ ok: boolean; engine?: string; engineVersion?: string }> {
  try {
    const res = await fetch(`${sidecarUrl}/health`, { signal: AbortSignal.timeout(2000) });
    if (!res.ok) return { ok: false };
    const body = (await res.json()) as { engine?: string; engineVersion?: string };
    return { ok: true, engine: body.engine, engineVersion: body.engineVersion };
  } catch {
    return { ok: false };
  }
}
