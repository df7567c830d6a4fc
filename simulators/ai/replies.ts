/**
 * The canned but input-dependent answers of the AI simulator (EXTERNAL-SERVICES.md "AI
 * providers"): each one quotes the question, names the protocol and model that answered, the
 * language of the system prompt and the project context found in it, so a test can tell the
 * providers and the injected context apart. Pure.
 */

export type SimProtocol = 'openai' | 'anthropic' | 'ollama';

export const PROTOCOL_NAMES: Record<SimProtocol, string> = {
  openai: 'OpenAI (chat completions)',
  anthropic: 'Anthropic (messages)',
  ollama: 'Ollama (chat)',
};

export interface SimTurn {
  role: string;
  content: string;
}

const RO_WORDS = new Set(['și', 'si', 'este', 'sunt', 'pentru', 'care', 'răspunde', 'raspunde', 'română', 'romana', 'limba', 'în', 'cu', 'de', 'la', 'un', 'o', 'ești', 'esti']);
const EN_WORDS = new Set(['the', 'and', 'you', 'are', 'is', 'answer', 'for', 'with', 'of', 'to', 'in', 'please', 'english', 'a', 'an']);

/** The system prompt's language, in Romanian, by a word count good enough for canned replies. */
export function promptLanguage(system: string): string {
  if (!system.trim()) return 'fără prompt de sistem';
  const words = system.toLowerCase().split(/[^\p{L}]+/u).filter(Boolean);
  const ro = words.filter((w) => RO_WORDS.has(w)).length + (/[ăâîșşțţ]/iu.test(system) ? 3 : 0);
  const en = words.filter((w) => EN_WORDS.has(w)).length;
  if (ro === 0 && en === 0) return 'necunoscută';
  return ro >= en ? 'română' : 'engleză';
}

/** `Proiect: ...` and `UAT: ...` lines the service writes into the system prompt. */
export function contextLines(system: string): { project: string | null; uat: string | null; registry: string | null; parcels: string | null } {
  const line = (label: string) => {
    const m = new RegExp(`^\\s*[-•]?\\s*${label}:\\s*(.+)$`, 'imu').exec(system);
    return m ? m[1].trim() : null;
  };
  return { project: line('Proiect'), uat: line('UAT'), registry: line('Registratură'), parcels: line('Parcele') };
}

function quote(text: string, max = 300): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** The whole answer to one conversation. */
export function cannedReply(protocol: SimProtocol, model: string, system: string, turns: SimTurn[]): string {
  const users = turns.filter((t) => t.role === 'user');
  const question = users.at(-1)?.content ?? '';
  const ctx = contextLines(system);
  const parts = [
    `[Simulator AI · ${PROTOCOL_NAMES[protocol]} · model ${model}]`,
    `Ați întrebat: „${quote(question)}”.`,
    `Limba promptului de sistem: ${promptLanguage(system)}.`,
    `Mesaje anterioare în conversație: ${Math.max(0, turns.length - 1)}.`,
  ];
  if (ctx.project) {
    const bits = [`proiectul „${ctx.project}”`];
    if (ctx.uat) bits.push(`UAT ${ctx.uat}`);
    if (ctx.parcels) bits.push(`parcele: ${ctx.parcels}`);
    if (ctx.registry) bits.push(`registratură: ${ctx.registry}`);
    parts.push(`Context primit: ${bits.join('; ')}.`);
  } else {
    parts.push('Fără context de proiect.');
  }
  parts.push(
    'Răspuns simulat: verificați certificatul de urbanism, regulamentul local de urbanism (PUG/PUZ) și extrasul de carte funciară înainte de a depune documentația.',
  );
  return parts.join(' ');
}

/** Splits an answer into stream pieces of a few words each, keeping every character. */
export function streamPieces(text: string, wordsPerPiece = 3): string[] {
  const words = text.split(/(?<=\s)/u);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerPiece) out.push(words.slice(i, i + wordsPerPiece).join(''));
  return out.length ? out : [''];
}
