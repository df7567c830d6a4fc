/**
 * The AI chat's words (spec 4.7): the default Romanian architecture system prompt, the project
 * context block written into it, and the demo mode's answer. Pure.
 */

/** Spec 4.7: the default system prompt of the chat, in Romanian, for an architecture office. */
export const DEFAULT_SYSTEM_PROMPT = [
  'Ești asistentul AI al unui birou de arhitectură, urbanism și cadastru din România.',
  'Răspunde în limba română, cu diacritice corecte, clar și concis, pentru arhitecți și ingineri.',
  'Cunoști legislația românească din domeniu: Legea 50/1991 privind autorizarea executării lucrărilor de construcții,',
  'Legea 350/2001 privind amenajarea teritoriului și urbanismul, Legea 7/1996 a cadastrului și publicității imobiliare,',
  'normativele tehnice (P118, NP 051, C107) și documentațiile uzuale: certificat de urbanism, DTAC, PUZ, PUD, extras de carte funciară.',
  'Când nu ești sigur, spune-o și indică sursa oficială care trebuie verificată (primăria, OCPI, Monitorul Oficial).',
  'Nu inventa numere cadastrale, numere de carte funciară sau date personale.',
].join(' ');

/** Limits of the request (the route's zod schema cites them). */
export const CHAT_LIMITS = {
  messageChars: 4000,
  historyTurns: 40,
  historyChars: 20_000,
} as const;

export type ChatRole = 'user' | 'assistant';
export interface ChatTurn {
  role: ChatRole;
  content: string;
}

export interface ProjectContext {
  tag: { id: string; path: string; code: string | null; name: string; company: string | null };
  uat: { siruta: number; name: string; county: string | null } | null;
  parcels: { total: number; withoutGeometry: number; buildings: number; sample: Array<{ cadastralRef: string; area: number | null }> } | null;
  registry: {
    total: number;
    items: Array<{ number: string; date: string; direction: string; subject: string; status: string | null; sender?: string | null; recipient?: string | null }>;
  };
}

const oneLine = (s: string, max = 200) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
};

/**
 * The context block, one labelled line per part (`Proiect:`, `UAT:`, `Parcele:`,
 * `Registratură:`), then the registry entries, so the model (and the simulator) can read it.
 */
export function contextBlock(ctx: ProjectContext): string {
  const lines = ['Contextul proiectului selectat de utilizator:'];
  lines.push(`Proiect: ${ctx.tag.path}${ctx.tag.company ? ` (compania ${ctx.tag.company})` : ''}`);
  if (ctx.uat) lines.push(`UAT: ${ctx.uat.name}${ctx.uat.county ? `, județul ${ctx.uat.county}` : ''} (SIRUTA ${ctx.uat.siruta})`);
  else lines.push('UAT: necunoscut (numele proiectului nu conține un UAT din catalog)');
  if (ctx.parcels) {
    const sample = ctx.parcels.sample.map((p) => (p.area != null ? `${p.cadastralRef} (${Math.round(p.area)} m²)` : p.cadastralRef));
    lines.push(
      `Parcele: ${ctx.parcels.total} parcele sincronizate (${ctx.parcels.withoutGeometry} fără geometrie), ${ctx.parcels.buildings} clădiri` +
        (sample.length ? `; exemple de numere cadastrale: ${sample.join(', ')}` : ''),
    );
  }
  lines.push(`Registratură: ${ctx.registry.total} înregistrări care menționează proiectul`);
  for (const e of ctx.registry.items) {
    const who = [e.sender ? `de la ${oneLine(e.sender, 80)}` : '', e.recipient ? `către ${oneLine(e.recipient, 80)}` : ''].filter(Boolean).join(' ');
    lines.push(
      `- ${e.number} din ${e.date}, ${e.direction === 'intrare' ? 'intrare' : 'ieșire'}: ${oneLine(e.subject)}` +
        (who ? ` (${who})` : '') +
        (e.status ? `; stare: ${e.status}` : ''),
    );
  }
  return lines.join('\n');
}

export function systemPrompt(ctx: ProjectContext | null): string {
  return ctx ? `${DEFAULT_SYSTEM_PROMPT}\n\n${contextBlock(ctx)}` : DEFAULT_SYSTEM_PROMPT;
}

/** The answer when no provider is configured: helpful, Romanian, and plain about being a demo. */
export function demoReply(message: string, ctx: ProjectContext | null): string {
  const parts = [
    'Mod demonstrativ: niciun furnizor AI nu este configurat, așa că acesta este un răspuns predefinit, nu unul generat.',
    `Ați întrebat: „${oneLine(message, 300)}”.`,
  ];
  if (ctx) {
    const uat = ctx.uat ? `, UAT ${ctx.uat.name}` : '';
    const parcels = ctx.parcels ? `, ${ctx.parcels.total} parcele sincronizate` : '';
    parts.push(`Proiectul selectat: ${ctx.tag.path}${uat}${parcels}, ${ctx.registry.total} înregistrări în registratură.`);
  }
  parts.push(
    'Pentru o autorizație de construire porniți de la certificatul de urbanism, verificați PUG/PUZ-ul în vigoare și extrasul de carte funciară actualizat.',
    'Pentru răspunsuri reale, administratorul configurează un furnizor (OPENAI_API_KEY, ANTHROPIC_API_KEY sau OLLAMA_URL).',
  );
  return parts.join(' ');
}
