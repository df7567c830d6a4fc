/**
 * The AI assistant page's reads: the provider status of GET /api/ai-chat (booleans and a name,
 * never a key) and the project tags of GET /api/project-tags, called in process.
 */
import { config } from '../../../domain/config';
import type { Store } from '../../../domain/db/store';
import { providerStatus } from '../../../domain/ai/service';
import { listProjectTags } from '../../../domain/office/service';

export async function assistantPage(store: Store) {
  const status = providerStatus(config.ai);
  try {
    const projects = (await listProjectTags(store.prisma, {})).map((p) => ({ id: p.id, path: p.path }));
    return { status, projects, projectsError: null };
  } catch {
    return { status, projects: [], projectsError: 'Lista de proiecte nu a putut fi citită.' };
  }
}
