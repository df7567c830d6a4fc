/**
 * The AI chat's door (docs/architecture.md "Areas"): the providers' status and the chat turns,
 * whole or streamed, with the project context a caller may see. Built once per process by
 * `domain/services.ts` `createServices` with the providers' settings (`outside.ai`, default
 * config.ai; a test aims at its own simulator) and the registry's listing, and handed to the chat
 * routes and the assistant page. Its pure rules are in `rules.ts`.
 */
import { config } from '../config';
import type { AreaDeps } from '../areaDeps';
import type { RegistryService } from '../registry/service';
import { chat, openChatStream, type ChatCaller, type ChatDeps, type ChatInput } from './chat';
import { providerStatus } from './providers';

export type { ChatCaller } from './chat';

export interface AiDeps extends Pick<AreaDeps, 'store' | 'outside'> {
  /** A project's context lists the registry entries the caller reads that mention it. */
  registry: Pick<RegistryService, 'listEntries'>;
}

export function createAiService({ store, outside, registry }: AiDeps) {
  const deps: ChatDeps = { prisma: store.prisma, db: store.pool, settings: outside.ai ?? config.ai, registry };
  return {
    /** Which providers are configured and which answers (booleans and a name, never a key). */
    providerStatus: () => providerStatus(deps.settings),
    chat: (input: ChatInput, caller: ChatCaller, signal: AbortSignal) => chat(deps, input, caller, signal),
    /** The answer as text pieces; a failure before the first piece is a plain 502. */
    openChatStream: (input: ChatInput, caller: ChatCaller, signal: AbortSignal) => openChatStream(deps, input, caller, signal),
  };
}

export type AiService = ReturnType<typeof createAiService>;
