/**
 * The frame shared by every /parcel-sync page: the header (eyebrow, title, subtitle) and the one
 * tab bar (Sincronizare, Căutare cadastrală, Tablou UAT, Export, Extrase CF, Sincronizare de weekend, Reguli de sincronizare). The tabs carry the
 * chosen UAT (`siruta`) from page to page; `?tab=epay` is the CF order flow of spec 4.3 (the tab
 * key keeps its original name).
 */
import type { ReactNode } from 'react';
import { Link } from '@remix-run/react';

export type ParcelSyncTab = 'sync' | 'search' | 'dashboard' | 'export' | 'epay' | 'weekend' | 'rules';

export const PARCEL_SYNC_TABS: ReadonlyArray<{ key: ParcelSyncTab; label: string; short?: string; href: (siruta: number | null) => string }> = [
  { key: 'sync', label: 'Sincronizare', href: (s) => (s ? `/parcel-sync?siruta=${s}` : '/parcel-sync') },
  { key: 'search', label: 'Căutare cadastrală', short: 'Căutare', href: (s) => `/parcel-sync?tab=search${s ? `&siruta=${s}` : ''}` },
  { key: 'dashboard', label: 'Tablou UAT', href: (s) => (s ? `/parcel-sync/dashboard?siruta=${s}` : '/parcel-sync/dashboard') },
  { key: 'export', label: 'Export', href: (s) => (s ? `/parcel-sync/export?siruta=${s}` : '/parcel-sync/export') },
  { key: 'epay', label: 'Extrase CF', href: (s) => `/parcel-sync?tab=epay${s ? `&siruta=${s}` : ''}` },
  { key: 'weekend', label: 'Sincronizare de weekend', short: 'Weekend', href: () => '/parcel-sync/weekend' },
  { key: 'rules', label: 'Reguli de sincronizare', short: 'Reguli', href: () => '/parcel-sync/reguli' },
];

export function ParcelSyncTabs({ active, siruta }: { active: ParcelSyncTab | null; siruta: number | null }) {
  return (
    <nav className="tabs" aria-label="Secțiuni sincronizare parcele">
      {PARCEL_SYNC_TABS.map((t) => (
        <Link
          key={t.key}
          to={t.href(siruta)}
          prefetch="intent"
          className={`tabs__tab${active === t.key ? ' tabs__tab--active' : ''}`}
          aria-current={active === t.key ? 'page' : undefined}
          data-testid={`tab-${t.key}`}
          title={t.short ? t.label : undefined}
        >
          {t.short ? (
            <>
              <span className="tabs__long">{t.label}</span>
              <span className="tabs__short">{t.short}</span>
            </>
          ) : (
            t.label
          )}
        </Link>
      ))}
    </nav>
  );
}

export function ParcelSyncLayout(props: {
  active: ParcelSyncTab | null;
  siruta: number | null;
  title: ReactNode;
  sub?: ReactNode;
  /** Replaces the plain "Sincronizare parcele" eyebrow (e.g. a breadcrumb). */
  eyebrow?: ReactNode;
  /** Next to the title, right-aligned (e.g. an action button). */
  aside?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="parcel-sync">
      <header className="page-head ps-head">
        <div className="ps-head__text">
          <p className="page-head__eyebrow">{props.eyebrow ?? 'Sincronizare parcele'}</p>
          <h1 className="page-head__title">{props.title}</h1>
          {props.sub ? <p className="page-head__sub">{props.sub}</p> : null}
        </div>
        {props.aside ? <div className="ps-head__aside">{props.aside}</div> : null}
      </header>
      <ParcelSyncTabs active={props.active} siruta={props.siruta} />
      <div className="parcel-sync__body">{props.children}</div>
    </div>
  );
}
