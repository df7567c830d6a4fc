/**
 * Municipal status authority simulator (EXTERNAL-SERVICES.md "status authority"): one HTML page
 * per submission, `GET /cerere/<number>`, with the petitioner's name, the status (label and
 * text) and a history table, in Romanian, written now and then in the old cedilla letters (ş ţ)
 * the way old municipal systems do. Around the status block the page carries what changes on
 * every load (the time of the visit, a visitor counter), so only the status part may be hashed.
 *   POST /__sim/status {number, status, text?}   set a submission's status (adds a history row)
 *   GET  /__sim/truth?number=                    the submission as the simulator holds it
 *   /__sim/faults, /__sim/reset, /__sim/requests (simulators/shared/control.ts); errorRate answers
 *   a 503 page or an HTML error page served with 200, alternately.
 * Unknown numbers of the shape `<digits>/<year>` or `<letters>-<digits>` get a generated
 * submission (seeded), so any request number a test invents exists, in state `inregistrat`.
 */
import { listenSimulator, simulatorApp } from '../shared/app';
import type { Response } from 'express';
import { z } from 'zod';
import { simSettings } from '../shared/settings';
import { SimControl } from '../shared/control';
import { Prng, hashSeed } from '../shared/prng';
import { FIRST_NAMES_F, FIRST_NAMES_M, SURNAMES, cedillaSpelling } from '../landreg/names';

export const SIM_STATUSES = {
  inregistrat: { label: 'Înregistrată', text: 'Cererea a fost înregistrată la registratura generală și repartizată compartimentului de specialitate.' },
  in_analiza: { label: 'În analiză', text: 'Documentația este în curs de verificare la Direcția de urbanism și amenajarea teritoriului.' },
  completari: { label: 'Completări solicitate', text: 'Vă rugăm să depuneți documentele lipsă: extras de carte funciară actualizat și plan de situație.' },
  aprobat: { label: 'Aprobată', text: 'Cererea a fost aprobată; actul se emite în termen de 5 zile lucrătoare.' },
  emis: { label: 'Emisă', text: 'Actul a fost emis și poate fi ridicat de la ghișeul nr. 3 sau descărcat din ghișeul virtual.' },
  respins: { label: 'Respinsă', text: 'Cererea a fost respinsă: documentația nu respectă reglementările planului urbanistic în vigoare.' },
} as const;
export type SimStatus = keyof typeof SIM_STATUSES;

interface Submission {
  number: string;
  petitioner: string;
  subject: string;
  status: SimStatus;
  text: string;
  history: Array<{ date: string; status: SimStatus; text: string }>;
}

const NUMBER_RE = /^[\p{L}\p{N}][\p{L}\p{N}\-/._ ]{0,99}$/u;
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const roDate = (d: Date) => d.toLocaleDateString('ro-RO', { timeZone: 'Europe/Bucharest' });

function errorPage503(): string {
  return `<!DOCTYPE html><html lang="ro"><head><meta charset="utf-8"><title>Serviciu indisponibil</title></head>
<body><h1>Serviciul este temporar indisponibil</h1><p>Vă rugăm să reveniți în câteva minute.</p></body></html>`;
}

function errorPage200(callNo: number): string {
  return `<!DOCTYPE html><html lang="ro"><head><meta charset="utf-8"><title>Primăria - Eroare</title></head>
<body><div class="antet">Primăria Municipiului — Ghișeul virtual</div>
<h1>A apărut o eroare</h1><p>Cererea dumneavoastră nu a putut fi procesată (cod ${callNo}). Încercați din nou.</p></body></html>`;
}

export interface StatusAuthoritySimOptions {
  port?: number;
  host?: string;
  seed?: number;
}

export interface StatusAuthoritySimulator {
  url: string;
  close(): Promise<void>;
}

export function createStatusAuthorityApp(opts: StatusAuthoritySimOptions = {}) {
  const initialSeed = opts.seed ?? simSettings.statusAuthority.seed;
  let seed = initialSeed;
  let submissions = new Map<string, Submission>();
  let visits = 0;
  const control = new SimControl('Ghișeul virtual al primăriei', {
    errorAnswer: (res: Response, callNo: number) => {
      if (callNo % 2 === 0) res.status(503).type('html').send(errorPage503());
      else res.status(200).type('html').send(errorPage200(callNo));
    },
  });

  const generated = (number: string): Submission => {
    const rng = new Prng(hashSeed(seed, 'submission', number));
    const female = rng.next() < 0.5;
    const first = rng.pick(female ? FIRST_NAMES_F : FIRST_NAMES_M);
    const petitioner = `${rng.pick(SURNAMES)} ${first}`;
    const date = roDate(new Date(Date.UTC(2026, 0, 5 + Math.floor(rng.next() * 60))));
    return {
      number,
      petitioner,
      subject: 'Certificat de urbanism',
      status: 'inregistrat',
      text: SIM_STATUSES.inregistrat.text,
      history: [{ date, status: 'inregistrat', text: SIM_STATUSES.inregistrat.text }],
    };
  };
  const get = (number: string) => {
    let s = submissions.get(number);
    if (!s) {
      s = generated(number);
      submissions.set(number, s);
    }
    return s;
  };

  const app = simulatorApp(control);

  app.use(
    '/__sim',
    control.router({
      onReset: (body) => {
        seed = body.seed === undefined ? initialSeed : typeof body.seed === 'number' ? body.seed : hashSeed(body.seed);
        submissions = new Map();
        visits = 0;
      },
      extend: (r) => {
        const statusBody = z.object({ number: z.string().regex(NUMBER_RE), status: z.enum(Object.keys(SIM_STATUSES) as [SimStatus, ...SimStatus[]]), text: z.string().max(2000).optional() });
        r.post('/status', (req, res) => {
          const parsed = statusBody.safeParse(req.body ?? {});
          if (!parsed.success) {
            res.status(400).json({ error: 'invalid_status', issues: parsed.error.issues });
            return;
          }
          const s = get(parsed.data.number);
          s.status = parsed.data.status;
          s.text = parsed.data.text ?? SIM_STATUSES[parsed.data.status].text;
          s.history.push({ date: roDate(new Date()), status: s.status, text: s.text });
          res.json(s);
        });
        r.get('/truth', (req, res) => {
          const n = String(req.query.number ?? '');
          if (n) res.json(submissions.get(n) ?? null);
          else res.json({ submissions: [...submissions.values()] });
        });
      },
    }),
  );

  app.get('/cerere/:number', (req, res) => {
    const number = req.params.number;
    visits++;
    if (!NUMBER_RE.test(number)) {
      res.status(404).type('html').send(`<!DOCTYPE html><html lang="ro"><head><meta charset="utf-8"><title>Negăsit</title></head><body><h1>Cererea nu a fost găsită</h1></body></html>`);
      return;
    }
    const s = get(number);
    // Old systems mix the cedilla letters in: every other visit writes ş/ţ (the same words).
    const spell = visits % 2 === 0 ? cedillaSpelling : (x: string) => x;
    const label = SIM_STATUSES[s.status].label;
    const rows = s.history
      .map((h) => `<tr><td>${esc(h.date)}</td><td>${esc(spell(SIM_STATUSES[h.status].label))}</td><td>${esc(spell(h.text))}</td></tr>`)
      .join('\n');
    res.type('html').send(`<!DOCTYPE html>
<html lang="ro"><head><meta charset="utf-8"><title>${esc(spell('Situația cererii'))} ${esc(s.number)}</title></head>
<body>
<div class="antet">${esc(spell('Primăria Municipiului — Ghișeul virtual'))}</div>
<p class="vizita">Pagină generată la ${esc(new Date().toLocaleString('ro-RO', { timeZone: 'Europe/Bucharest' }))}, vizitatori: ${visits}</p>
<h1>${esc(spell('Situația cererii nr.'))} ${esc(s.number)}</h1>
<table class="date-cerere">
  <tr><th>Petent</th><td id="petent">${esc(spell(s.petitioner))}</td></tr>
  <tr><th>Obiect</th><td>${esc(spell(s.subject))}</td></tr>
</table>
<div id="stare-cerere">
  <h2>Stadiul actual</h2>
  <p>Stare:  <strong class="stare">${esc(spell(label))}</strong></p>
  <p class="detalii">
     ${esc(spell(s.text))}
  </p>
</div>
<h2>Istoric</h2>
<table id="istoric"><thead><tr><th>Data</th><th>Stare</th><th>Detalii</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<footer>${esc(spell('Informațiile au caracter orientativ.'))}</footer>
</body></html>`);
  });

  return { app };
}

export async function startStatusAuthoritySimulator(opts: StatusAuthoritySimOptions = {}): Promise<StatusAuthoritySimulator> {
  const { app } = createStatusAuthorityApp(opts);
  const listening = await listenSimulator(app, opts.port ?? simSettings.statusAuthority.port, opts.host);
  return listening;
}
