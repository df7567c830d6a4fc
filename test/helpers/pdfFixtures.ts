/**
 * The PDF test corpus, generated with Ghostscript and qpdf (never checked in): a scanned-style
 * page (a raster of several MB, stored losslessly as scanners' PDF exports often are), a
 * three-page text PDF, the text PDF encrypted with qpdf, and a text file named `.pdf`.
 * Used by the PDF tests and by `npm run bench -- pdf`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const ENCRYPTED_USER_PASSWORD = 'parola-utilizator';
export const ENCRYPTED_OWNER_PASSWORD = 'parola-proprietar';

export interface PdfCorpus {
  scan: string;
  text: string;
  encrypted: string;
  notPdf: string;
}

/** A scanned-style A4 page: a 1400 x 1900 RGB raster (paper grain over a gradient). */
const SCAN_PS = `%!PS
/w 1400 def /h 1900 def /seed 12345 def
/rnd { seed 1103515245 mul 12345 add 2147483647 and /seed exch def seed } def
<< /PageSize [595 842] >> setpagedevice
gsave 20 20 translate 555 800 scale
/str w 3 mul string def /row 0 def
w h 8 [w 0 0 h neg 0 h]
{ 0 1 w 3 mul 1 sub { str exch rnd -16 bitshift 127 and row 16 idiv add 100 add 255 min put } for /row row 1 add def str } false 3 colorimage
grestore
showpage
`;

function textPs(): string {
  const lines: string[] = [];
  for (let page = 0; page < 3; page++) {
    lines.push('/Times-Roman findfont 11 scalefont setfont');
    for (let i = 0; i < 60; i++) lines.push(`60 ${780 - i * 12} moveto (Memoriu tehnic, pagina ${page + 1}, rândul ${i + 1}: parcela 1234, CF 56789, suprafata 500 mp.) show`);
    lines.push('showpage');
  }
  return `%!PS\n${lines.join('\n')}\n`;
}

/** Writes the corpus into `dir` (which must exist). */
export async function makePdfCorpus(dir: string): Promise<PdfCorpus> {
  const files: PdfCorpus = {
    scan: path.join(dir, 'scan.pdf'),
    text: path.join(dir, 'text.pdf'),
    encrypted: path.join(dir, 'encrypted.pdf'),
    notPdf: path.join(dir, 'notes.pdf'),
  };
  await fs.writeFile(path.join(dir, 'scan.ps'), SCAN_PS);
  await fs.writeFile(path.join(dir, 'text.ps'), textPs());
  const gsBase = ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=pdfwrite'];
  await Promise.all([
    run('gs', [...gsBase, '-dAutoFilterColorImages=false', '-dColorImageFilter=/FlateEncode', '-dDownsampleColorImages=false', `-sOutputFile=${files.scan}`, path.join(dir, 'scan.ps')]),
    run('gs', [...gsBase, `-sOutputFile=${files.text}`, path.join(dir, 'text.ps')]),
  ]);
  await run('qpdf', ['--encrypt', ENCRYPTED_USER_PASSWORD, ENCRYPTED_OWNER_PASSWORD, '256', '--', files.text, files.encrypted]);
  await fs.writeFile(files.notPdf, 'Acesta nu este un PDF, doar un fișier text cu extensia .pdf.\n');
  return files;
}

/** Pages of a PDF after `qpdf --check` passed (throws on a broken file). */
export async function pdfPageCount(file: string): Promise<number> {
  await run('qpdf', ['--check', file]);
  const { stdout } = await run('qpdf', ['--show-npages', file]);
  return Number(stdout.trim());
}
