/**
 * Project tags as the external tools read them (GET /api/address-book/project-tags, docs/office.md):
 * the project tags with their code and company. The tags' table is the tags area's own.
 */
import type { PrismaClient } from '../db/prisma';

/** At most this many tags an answer (the address book's list limit). */
const LIST_LIMIT = 500;

export interface ProjectTagOut {
  id: string;
  code: string | null;
  name: string;
  path: string;
  company: string | null;
  updatedAt: string;
}

/** Project tags (category project) with their code and company, as the external tools want them. */
export async function listProjectTags(prisma: PrismaClient, filter: { q?: string; company?: string; id?: string }): Promise<ProjectTagOut[]> {
  const q = filter.q?.trim();
  const rows = await prisma.tag.findMany({
    where: {
      category: 'project',
      ...(filter.id ? { id: filter.id } : {}),
      ...(filter.company ? { company: filter.company } : {}),
      ...(q ? { OR: [{ path: { contains: q, mode: 'insensitive' } }, { projectCode: { contains: q, mode: 'insensitive' } }] } : {}),
    },
    orderBy: [{ projectCode: 'asc' }, { path: 'asc' }],
    take: LIST_LIMIT,
  });
  return rows.map((r) => ({
    id: r.id,
    code: r.projectCode,
    name: r.projectCode ? r.project.slice(r.projectCode.length).trim() : r.project,
    path: r.path,
    company: r.company,
    updatedAt: r.updatedAt.toISOString(),
  }));
}
