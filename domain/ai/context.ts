/**
 * The project context of a chat (spec 4.7 "project context is injected"). A project is what the
 * tags name at their project level, named by the id of its project tag (`GET /api/project-tags`)
 * or, for a project known only from full-path tags, of one of its tags (the assistant's list,
 * `listProjects`); a project of a company the caller does not read is unknown to them. Nothing in the store links a tag
 * to a UAT or to registry entries, so the links are read from the text, as people write them:
 *   - registry entries: those the caller may read whose subject, number or notes mention the
 *     project code (or the project name when the tag has no code), through the registry's own
 *     listing, so its company visibility and redaction apply;
 *   - UAT: the catalogue UAT whose name appears as whole words in the project name (else in the
 *     subjects of those entries), preferring a UAT with synced parcels, then the longest name;
 *   - parcels: counts of that UAT's synced parcels and buildings and a few cadastral numbers with
 *     their areas. No owner, CF number or address: those are personal (viewer rule) and a chat
 *     does not need them.
 */
import type { PrismaClient } from '../db/prisma';
import type { Viewer } from '../auth/rules';
import { errors } from '../errors';
import { uatNamedIn, uatParcels } from '../landreg/service';
import { projectOfTag } from '../tags/service';
import { readableCompanies, type RegistryViewer } from '../registry/rules';
import type { RegistryService } from '../registry/service';
import type { ProjectContext } from './prompt';

const PARCEL_LAYER = 'TERENURI_ACTIVE';
const BUILDING_LAYER = 'CLADIRI_ACTIVE';
/** How much of the store a prompt carries: enough to be useful, small enough to stay cheap. */
const REGISTRY_ITEMS = 10;
const PARCEL_SAMPLE = 5;

async function findUat(prisma: PrismaClient, texts: string[]): Promise<ProjectContext['uat']> {
  for (const text of texts.filter((t) => t.trim())) {
    const uat = await uatNamedIn(prisma, text, PARCEL_LAYER);
    if (uat) return uat;
  }
  return null;
}

/** The context of project tag `projectId` as this caller may see it; 404 for an unknown id. */
export async function projectContext(
  prisma: PrismaClient,
  registryEntries: Pick<RegistryService, 'listEntries'>,
  projectId: string,
  viewer: Viewer,
  registryViewer: RegistryViewer,
): Promise<ProjectContext> {
  const tag = await projectOfTag(prisma, projectId);
  const visible = tag && (tag.company === null || (readableCompanies(registryViewer) as string[]).includes(tag.company));
  if (!tag || !visible) throw errors.notFound('Proiectul nu există (nicio etichetă de proiect cu acest id).');
  const registry = await registryEntries.listEntries(registryViewer, { q: tag.code ?? tag.name, pageSize: REGISTRY_ITEMS });
  const uat = await findUat(prisma, [tag.name, ...registry.items.map((e) => e.subject)]);
  return {
    tag: { id: tag.id, path: tag.path, code: tag.code, name: tag.name, company: tag.company },
    uat,
    parcels: uat ? await uatParcels(prisma, uat.siruta, { parcels: PARCEL_LAYER, buildings: BUILDING_LAYER }, PARCEL_SAMPLE) : null,
    registry: {
      total: registry.total,
      items: registry.items.map((e) => ({
        number: e.number,
        date: e.date,
        direction: e.direction,
        subject: e.subject,
        status: e.tracking?.statusLabel ?? e.tracking?.status ?? null,
        // The registry listing already withholds these from restricted viewers; the viewer rule
        // is asked again so the prompt never carries more than the caller could read.
        ...(viewer.personalData ? { sender: e.sender, recipient: e.recipient } : {}),
      })),
    },
  };
}
