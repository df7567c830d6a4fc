/**
 * The AI assistant page's reads: the provider status of GET /api/ai-chat (booleans and a name,
 * never a key) and the projects the office's tags name (whether added as a project or as a full
 * path), those of the companies the user reads, called in process.
 */
import type { SessionContext } from '../../../domain/auth/rules';
import type { AppLoadContext } from '@remix-run/node';
import { readableCompanies, registryViewer } from '../../../domain/registry/rules';

export async function assistantPage({ services }: Pick<AppLoadContext, 'services'>, auth: SessionContext) {
  const status = services.ai.providerStatus();
  const { tags } = services;
  try {
    const projects = (await tags.listProjects(readableCompanies(registryViewer(auth)))).map((p) => ({ id: p.id, path: p.path }));
    return { status, projects, projectsError: null };
  } catch {
    return { status, projects: [], projectsError: 'Lista de proiecte nu a putut fi citită.' };
  }
}
