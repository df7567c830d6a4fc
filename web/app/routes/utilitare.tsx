/**
 * "Utilitare" (spec 1, 2.8, 4.6): the office utilities in one place: tag manager with the tag-file
 * sync, password vault with its access log, address book. Reads come from the loader (the same
 * domain functions and caller rules as the API); changes go through the API routes, then the
 * loader is read again.
 */
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData, useNavigation, useRevalidator, useSearchParams } from '@remix-run/react';
import officeCss from '../styles/office.css?url';
import { requireSession } from '../lib/auth.server';
import { officePage, officeTabOf } from '../lib/office.server';
import { TagManager } from '../components/office/TagManager';
import { Vault } from '../components/office/Vault';
import { AddressBook } from '../components/office/AddressBook';
import { DOC_TOOL_TABS, OFFICE_TABS } from '../components/tools/ToolsLayout';
import { formatBytes } from '../lib/tilesFormat';

export const meta: MetaFunction = () => [{ title: 'Utilitare · Geoportal cadastral' }];
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: officeCss }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  const tab = officeTabOf(new URL(request.url).searchParams.get('tab'));
  return { ...(await officePage(context.services, auth, tab)), isAdmin: auth.isAdmin, company: auth.user.company };
}

const TABS = OFFICE_TABS.map((t) => ({ id: t.key, label: t.label }));
type Tab = (typeof OFFICE_TABS)[number]['key'];

export default function Utilitare() {
  const d = useLoaderData<typeof loader>();
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  // A tab picked (its data being read) or the shown one read again after a change.
  const loading = revalidator.state === 'loading' || (navigation.state === 'loading' && navigation.location.pathname === '/utilitare');
  const [, setParams] = useSearchParams();
  // The tab whose data the loader read: a pick loads the new tab's data, then shows it.
  const tab: Tab = d.tab;
  const refresh = () => revalidator.revalidate();
  const pick = (t: Tab) => setParams({ tab: t }, { replace: true, preventScrollReset: true });
  const errorOf = (...e: Array<string | null>) => e.find(Boolean);

  return (
    <div className="page">
      <header className="page-head">
        <p className="page-head__eyebrow">Birou</p>
        <h1 className="page-head__title">Utilitare</h1>
        <p className="page-head__sub">Etichete de proiect sincronizate cu fișierul aplicației de pontaj, parole comune, agenda firmelor și instrumentele pentru documente.</p>
        {d.storage.used !== null && (
          <p className="office-muted" data-testid="storage-usage">
            Spațiu folosit: {formatBytes(d.storage.used)} din {formatBytes(d.storage.quota)}
          </p>
        )}
        {d.storage.error && <p className="office-error" role="alert">{d.storage.error}</p>}
      </header>
      <nav className="tabs" aria-label="Utilitare">
        {TABS.map((t) => (
          <button key={t.id} type="button" className="tabs__tab" aria-current={tab === t.id ? 'page' : undefined} onClick={() => pick(t.id)}>
            {t.label}
          </button>
        ))}
        {DOC_TOOL_TABS.map((t) => (
          <Link key={t.key} to={t.href} prefetch="intent" className="tabs__tab" data-testid={`tab-${t.key}`}>
            {t.label}
          </Link>
        ))}
      </nav>
      {loading && (
        <p className="office-muted" role="status">
          Se actualizează…
        </p>
      )}
      {tab === 'etichete' && (
        <>
          {errorOf(d.tags.error, d.plan.error) && <p className="office-error" role="alert">{errorOf(d.tags.error, d.plan.error)}</p>}
          <TagManager tags={d.tags.data ?? []} plan={d.plan.data} isAdmin={d.isAdmin} onChanged={refresh} />
        </>
      )}
      {tab === 'seif' && (
        <>
          {errorOf(d.vault.error, d.accessLog.error) && <p className="office-error" role="alert">{errorOf(d.vault.error, d.accessLog.error)}</p>}
          <Vault entries={d.vault.data ?? []} accessLog={d.accessLog.data ?? []} callerCompany={d.company} onChanged={refresh} />
        </>
      )}
      {tab === 'agenda' && (
        <>
          {d.contacts.error && <p className="office-error" role="alert">{d.contacts.error}</p>}
          <AddressBook contacts={d.contacts.data ?? []} onChanged={refresh} />
        </>
      )}
    </div>
  );
}
