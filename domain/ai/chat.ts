/**
 * One chat turn (spec 4.7): the project context when a project is named, the default Romanian
 * system prompt, the active provider (or the demo answer), one retry where it is safe (through the
 * outside-call base, domain/outside/service.ts, whose transport also paces the providers for all processes), and
 * the Romanian 502 when the provider fails. Answers whole (`chat`) or as text pieces
 * (`openChatStream`, for the server-sent-events route).
 */
import type { AiProviderName, AiSettings } from '../config';
import type { Db } from '../db/pool';
import type { PrismaClient } from '../db/prisma';
import type { RegistryService } from '../registry/service';
import type { Viewer } from '../auth/rules';
import type { RegistryViewer } from '../registry/rules';
import { errors } from '../errors';
import { childLogger } from '../log';
import { outsideCall, type OutsideCallOptions } from '../outside/service';
import { projectContext } from './context';
import { demoReply, systemPrompt, type ChatTurn, type ProjectContext } from './prompt';
import { PROVIDER_LABELS, providerClient, providerStatus, UpstreamFailure, type ActiveProvider, type Conversation } from './providers';

const log = childLogger('ai-chat');

/** What a chat turn runs on: the store, the providers' settings, the registry's listing (a project's entries). */
export interface ChatDeps {
  prisma: PrismaClient;
  db: Db;
  settings: AiSettings;
  registry: Pick<RegistryService, 'listEntries'>;
}

export interface ChatInput {
  message: string;
  history?: ChatTurn[];
  projectId?: string;
}

/** What the caller may see, derived once by the route (viewer rule; registry visibility). */
export interface ChatCaller {
  viewer: Viewer;
  registryViewer: RegistryViewer;
}

export interface ChatAnswer {
  reply: string;
  provider: ActiveProvider;
}

interface Prepared {
  provider: ActiveProvider;
  ctx: ProjectContext | null;
  conversation: Conversation;
}

async function prepare({ prisma, registry, settings }: ChatDeps, input: ChatInput, caller: ChatCaller): Promise<Prepared> {
  const ctx = input.projectId ? await projectContext(prisma, registry, input.projectId, caller.viewer, caller.registryViewer) : null;
  return {
    provider: providerStatus(settings).active,
    ctx,
    conversation: { system: systemPrompt(ctx), turns: [...(input.history ?? []), { role: 'user', content: input.message }] },
  };
}

function upstreamError(provider: AiProviderName, err: unknown) {
  const f = err instanceof UpstreamFailure ? err : null;
  log.warn({ provider, status: f?.status ?? null }, 'AI provider call failed');
  const refused = f?.status === 401 || f?.status === 403;
  return errors.upstream(
    `Asistentul AI (${PROVIDER_LABELS[provider]}) nu a putut răspunde. Încercați din nou în câteva momente.`,
    refused
      ? 'Furnizorul a refuzat cheia de acces configurată; administratorul trebuie să o verifice.'
      : f?.status == null
        ? 'Furnizorul nu a răspuns la timp sau nu poate fi contactat.'
        : `Furnizorul a răspuns cu codul ${f.status}.`,
  );
}

/** Asking again is safe: a chat completion changes nothing upstream. One more try, at once. */
const policy = (signal: AbortSignal): OutsideCallOptions => ({
  service: 'ai',
  idempotent: true,
  retry: { retries: 1, baseDelayMs: 0 },
  transient: (err) => err instanceof UpstreamFailure && err.retryable,
  signal,
});

export async function chat(deps: ChatDeps, input: ChatInput, caller: ChatCaller, signal: AbortSignal): Promise<ChatAnswer> {
  const p = await prepare(deps, input, caller);
  if (p.provider === 'demo') return { reply: demoReply(input.message, p.ctx), provider: 'demo' };
  const client = providerClient(deps.settings, p.provider, deps.db);
  const started = Date.now();
  try {
    return await outsideCall(policy(signal), async (attempt) => {
      const reply = await client.complete(p.conversation, signal);
      log.info({ provider: p.provider, ms: Date.now() - started, attempt, project: input.projectId ?? null }, 'AI chat answered');
      return { reply, provider: p.provider };
    });
  } catch (err) {
    throw upstreamError(p.provider, err);
  }
}

export interface ChatStream {
  provider: ActiveProvider;
  /** The answer's text pieces; the first one has already arrived when this is handed out. */
  pieces: AsyncGenerator<string>;
}

async function* prepend(first: string, rest: AsyncGenerator<string>): AsyncGenerator<string> {
  yield first;
  yield* rest;
}

/**
 * Opens the provider's stream and waits for its first piece, so a failure before any text (the
 * usual kind) still answers a plain 502 after one retry; a failure later ends the stream.
 */
export async function openChatStream(deps: ChatDeps, input: ChatInput, caller: ChatCaller, signal: AbortSignal): Promise<ChatStream> {
  const p = await prepare(deps, input, caller);
  if (p.provider === 'demo') {
    const words = demoReply(input.message, p.ctx).split(/(?<=\s)/u);
    return { provider: 'demo', pieces: (async function* () { yield* words; })() };
  }
  const provider = p.provider;
  const client = providerClient(deps.settings, provider, deps.db);
  try {
    return await outsideCall(policy(signal), async () => {
      const gen = client.stream(p.conversation, signal);
      const first = await gen.next();
      if (first.done) return { provider, pieces: (async function* () {})() };
      const rest = (async function* () {
        try {
          yield* gen;
        } catch (err) {
          throw upstreamError(provider, err);
        }
      })();
      return { provider, pieces: prepend(first.value, rest) };
    });
  } catch (err) {
    throw upstreamError(provider, err);
  }
}
