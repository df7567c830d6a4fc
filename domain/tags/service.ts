/**
 * The tags area's door (docs/architecture.md "Areas", docs/office.md "Tag sync"): the app's
 * project, phase and activity tags, their sync with the time tracker's tag file
 * (config.office.tagFilePath), and the projects they name, as the tag routes
 * (api/routes/officeTags.ts), the utilities and assistant pages' loaders (through the load context)
 * and the assistant's context call them. Built once per process by `domain/services.ts`.
 */
import type { AreaDeps } from '../areaDeps';
import { config } from '../config';
import { listProjectTags } from './projectTags';
import { addTag, applyTagSync, deleteTag, listProjects, listTags, projectOfTag, tagSyncPlan, updateTag, type ApplyInput, type TagChange } from './tags';

export type { PlanAnswer, TagOut } from './tags';
/** The assistant's project context (domain/ai/context.ts), which holds Prisma rather than the services. */
export { projectOfTag };

export function createTagsService({ store }: AreaDeps) {
  const { prisma } = store;
  return {
    /** What a sync of the tag file would change on each side, and the fingerprint an apply may insist on. */
    syncPlan: () => tagSyncPlan(prisma, config.office.tagFilePath),
    /** Applies a sync (pull, push or both) with the chosen conflict resolutions; `by` is recorded. */
    applySync: (input: ApplyInput, by: string | null) => applyTagSync(prisma, config.office.tagFilePath, input, by),
    listTags: (filter: { q?: string; company?: string } = {}) => listTags(prisma, filter),
    addTag: (input: Parameters<typeof addTag>[1]) => addTag(prisma, input),
    updateTag: (id: string, change: TagChange) => updateTag(prisma, id, change),
    deleteTag: (id: string) => deleteTag(prisma, id),
    /** The projects the tags name, limited to the companies the viewer reads. */
    listProjects: (companies: readonly string[]) => listProjects(prisma, companies),
    projectOfTag: (id: string) => projectOfTag(prisma, id),
    /** Project tags with their code and company, as the external tools want them. */
    listProjectTags: (filter: { q?: string; company?: string; id?: string }) => listProjectTags(prisma, filter),
  };
}

export type TagsService = ReturnType<typeof createTagsService>;
