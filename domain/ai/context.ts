/**
 * The project context of a chat (spec 4.7 "project context is injected"). A project is a project
 * tag (category `project`, the id of `GET /api/project-tags`). Nothing in the store links a tag
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
import { Prisma, type PrismaClient } from '../db/prisma';
import type { Viewer } from '../auth/viewer';
import { errors } from '../errors';
import { listEntries } from '../registry/entries';
import type { RegistryViewer } from '../registry/access';
import type { ProjectContext } from './prompt';

const PARCEL_LAYER = 'TERENURI_ACTIVE';
const BUILDING_LAYER = 'CLADIRI_ACTIVE';
/** How much of the store a prompt carries: enough to be useful, small enough to stay cheap. */
const REGISTRY_ITEMS = 10;
const PARCEL_SAMPLE = 5;

async function findUat(prisma: PrismaClient, texts: string[]): Promise<ProjectContext['uat']> {
  for (const text of texts.filter((t) => t.trim())) {
    // Word-bounded, diacritic-insensitive: "Cluj" does not match "Clujana", "Florești" matches "Floresti".
    const rows = await prisma.$queryRaw<Array<{ siruta: number; name: string; county: string | null }>>`
      SELECT u.siruta, u.name, u.county
        FROM gis_uats u
       WHERE (' ' || regexp_replace(f_norm(${text}), '[^a-z0-9]+', ' ', 'g') || ' ')
             LIKE ('% ' || trim(regexp_replace(f_norm(u.name), '[^a-z0-9]+', ' ', 'g')) || ' %')
       ORDER BY EXISTS (SELECT 1 FROM gis_features f WHERE f.siruta = u.siruta AND f.layer_id = ${PARCEL_LAYER}) DESC,
                length(u.name) DESC, u.siruta
       LIMIT 1`;
    if (rows[0]) return rows[0];
  }
  return null;
}

async function parcelsOf(prisma: PrismaClient, siruta: number): Promise<NonNullable<ProjectContext['parcels']>> {
  const [counts] = await prisma.$queryRaw<Array<{ total: number; no_geom: number; buildings: number }>>`
    SELECT count(*) FILTER (WHERE layer_id = ${PARCEL_LAYER})::int AS total,
           count(*) FILTER (WHERE layer_id = ${PARCEL_LAYER} AND geom IS NULL)::int AS no_geom,
           count(*) FILTER (WHERE layer_id = ${BUILDING_LAYER})::int AS buildings
      FROM gis_features WHERE siruta = ${siruta} AND layer_id IN (${Prisma.join([PARCEL_LAYER, BUILDING_LAYER])})`;
  const sample = await prisma.gisFeature.findMany({
    where: { siruta, layerId: PARCEL_LAYER, cadastralRef: { not: null } },
    select: { cadastralRef: true, areaValue: true },
    orderBy: { objectId: 'asc' },
    take: PARCEL_SAMPLE,
  });
  return {
    total: counts?.total ?? 0,
    withoutGeometry: counts?.no_geom ?? 0,
    buildings: counts?.buildings ?? 0,
    sample: sample.map((s) => ({ cadastralRef: s.cadastralRef!, area: s.areaValue })),
  };
}

/** The context of project tag `projectId` as this caller may see it; 404 for an unknown id. */
export async function projectContext(
  prisma: PrismaClient,
  projectId: string,
  viewer: Viewer,
  registryViewer: RegistryViewer,
): Promise<ProjectContext> {
  const tag = await prisma.tag.findFirst({ where: { id: projectId, category: 'project' } });
  if (!tag) throw errors.notFound('Proiectul nu există (nicio etichetă de proiect cu acest id).');
  const name = tag.projectCode ? tag.project.slice(tag.projectCode.length).trim() : tag.project;
  const registry = await listEntries(prisma, registryViewer, { q: tag.projectCode ?? tag.project, pageSize: REGISTRY_ITEMS });
  const uat = await findUat(prisma, [name, ...registry.items.map((e) => e.subject)]);
  return {
    tag: { id: tag.id, path: tag.path, code: tag.projectCode, name, company: tag.company },
    uat,
    parcels: uat ? await parcelsOf(prisma, uat.siruta) : null,
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
