/**
 * The AI chat's application service: the provider status the assistant page shows, the same
 * `GET /api/ai-chat` answers (docs/architecture.md "Application services").
 */
export { providerStatus } from './providers';
