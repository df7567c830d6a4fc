/**
 * Address book and project tags for external tools (spec 4.6, CONTRACT.md sections 2, 4, 5):
 * `/api/contacts` and `/api/project-tags`, reached with the ADDRESSBOOK_API_KEY bearer token or a
 * user session. The address book is the firms' shared one: company and type are filters, not a
 * visibility rule (a tool holding the key has no company of its own).
 */
import type { PrismaClient } from '../db/prisma';
import { errors } from '../errors';

export interface ContactInput {
  name?: string;
  company?: string | null;
  type?: string;
  organization?: string | null;
  role?: string | null;
  email?: string | null;
  phone?: string | null;
  address?: string | null;
  notes?: string | null;
}

export interface ContactOut {
  id: string;
  name: string;
  company: string | null;
  type: string;
  organization: string | null;
  role: string | null;
  email: string | null;
  phone: string | null;
  address: string | null;
  notes: string | null;
  createdAt: string;
  updatedAt: string;
}

type ContactRow = Omit<ContactOut, 'createdAt' | 'updatedAt'> & { createdAt: Date; updatedAt: Date; createdBy: string | null };

function contactOut({ createdBy: _c, createdAt, updatedAt, ...rest }: ContactRow): ContactOut {
  return { ...rest, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() };
}

export const LIST_LIMIT = 500;

export async function listContacts(
  prisma: PrismaClient,
  filter: { q?: string; company?: string; type?: string },
): Promise<ContactOut[]> {
  const q = filter.q?.trim();
  // Diacritic- and case-insensitive ("stefanescu" finds "Ștefănescu"): the store's f_norm fold.
  const matching = q
    ? (
        await prisma.$queryRaw<Array<{ id: string }>>`
          SELECT id FROM contacts
           WHERE strpos(f_norm(concat_ws(' ', name, organization, email, phone, role, address)), f_norm(${q})) > 0`
      ).map((r) => r.id)
    : null;
  const rows = await prisma.contact.findMany({
    where: {
      ...(filter.company ? { company: filter.company } : {}),
      ...(filter.type ? { type: filter.type } : {}),
      ...(matching ? { id: { in: matching } } : {}),
    },
    orderBy: [{ name: 'asc' }, { createdAt: 'asc' }],
    take: LIST_LIMIT,
  });
  return rows.map(contactOut);
}

export async function getContact(prisma: PrismaClient, id: string): Promise<ContactOut> {
  const row = await prisma.contact.findUnique({ where: { id } });
  if (!row) throw errors.notFound('Contactul nu există.');
  return contactOut(row);
}

export async function createContact(prisma: PrismaClient, input: ContactInput & { name: string }, createdBy: string | null): Promise<ContactOut> {
  return contactOut(await prisma.contact.create({ data: { ...input, type: input.type ?? 'person', createdBy } }));
}

export async function updateContact(prisma: PrismaClient, id: string, input: ContactInput): Promise<ContactOut> {
  const { count } = await prisma.contact.updateMany({ where: { id }, data: input });
  if (count === 0) throw errors.notFound('Contactul nu există.');
  return getContact(prisma, id);
}

export async function deleteContact(prisma: PrismaClient, id: string): Promise<void> {
  const { count } = await prisma.contact.deleteMany({ where: { id } });
  if (count === 0) throw errors.notFound('Contactul nu există.');
}
