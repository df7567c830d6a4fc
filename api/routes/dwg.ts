/**
 * DWG → DXF (spec 4.7, CONTRACT.md 4 "DWG"): the upload is streamed to disk by the shared helper
 * (500 MB, 413 above), sent to the conversion sidecar (sidecars/dwg/, its own process) and the
 * DXF answered as an attachment with the entity counts in headers. The DXF is received to disk
 * first, so a failed conversion still answers a proper error body instead of a cut download.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Router } from 'express';
import { z } from 'zod';
import { defineRoute } from '../http/route';
import { withUpload } from '../http/upload';
import { errors } from '../../domain/errors';
import { clientGone, sendAttachment } from '../http/download';
import { heavyWork, holdSlot } from '../http/rateLimit';
import { dxfFileName, formatEntityTypes } from '../../domain/dwg/rules';
import type { DwgService } from '../../domain/dwg/service';

const tags = ['dwg'];

const StatusSchema = z.object({
  available: z.boolean(),
  engine: z.string().optional(),
  engineVersion: z.string().optional(),
});

export function registerDwgRoutes(router: Router, dwg: DwgService): void {
  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/dwg/convert',
      summary:
        'Convert a DWG drawing to DXF (multipart `file`); entity counts in X-Dxf-Entities and X-Dxf-Entity-Types (`LINE=3;CIRCLE=1`), the DWG version in X-Dwg-Version',
      tags,
      auth: 'session',
      response: { description: 'The DXF drawing as an attachment (`<name>.dxf`)', contentType: 'application/dxf' },
      failures: {
        413: 'The upload is over the limit (500 MB)',
        422: 'Not a DWG file (`not_dwg`) or a damaged drawing LibreDWG cannot read (`dwg_unreadable`)',
        429: 'Past the per-user or global cap of conversions, or the sidecar\'s wait queue is full (Retry-After)',
        502: 'The conversion sidecar answered an unexpected error',
        503: 'The conversion sidecar is not reachable (`dwg_converter_unavailable`)',
        504: 'The conversion ran past its limit (120 s) and was stopped (`conversion_timeout`)',
      },
    },
    async ({ req, res }) => {
      await holdSlot(heavyWork.dwg, req, res);
      // A client that leaves cancels the sidecar call, and the sidecar kills the conversion.
      const signal = clientGone(res);
      const conversion = withUpload(req, { fileFields: ['file'] }, async (up) => {
        const file = up.files[0];
        if (!file) throw errors.badRequest('Lipsește fișierul DWG (câmpul „file”).', [{ field: 'file', problem: 'required' }]);
        const out = path.join(path.dirname(file.path), 'out.dxf');
        const dxf = await dwg.convert(file.path, out, signal);
        // Awaited inside the helper so the temp directory goes only after the last byte left.
        await sendAttachment(res, createReadStream(out), {
          contentType: 'application/dxf',
          fileName: dxfFileName(file.fileName),
          size: dxf.dxfSize,
          headers: {
            'X-Dxf-Entities': String(dxf.entities),
            'X-Dxf-Entity-Types': formatEntityTypes(dxf.entityTypes),
            'X-Dwg-Version': dxf.dwgVersion,
            'X-Dwg-Warnings': String(dxf.warnings),
          },
        });
      });
      try {
        await conversion;
      } catch (err) {
        // Nobody is left to answer.
        if (signal.aborted) return;
        throw err;
      }
    },
  );
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/dwg/status',
      summary: 'Whether the DWG conversion sidecar answers, and its engine',
      tags,
      auth: 'session',
      response: { description: 'Converter availability', schema: StatusSchema },
    },
    async () => {
      const h = await dwg.health();
      return { available: h.ok, engine: h.engine, engineVersion: h.engineVersion };
    },
  );
}
