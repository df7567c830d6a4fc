/**
 * The frame shared by every /instrumente page (spec 1.7, the document tools). The tools belong to
 * "Utilitare" (spec 1 item 7): one tab bar carries the office sections of /utilitare and the
 * document tools, so the top bar keeps one entry. Each tool adds its entry to DOC_TOOL_TABS (and
 * nowhere else); a tool that does not exist yet has no entry, so nothing unbuilt is linked.
 */
import type { ReactNode } from 'react';
import { Link } from '@remix-run/react';

export interface DocToolTab {
  key: string;
  label: string;
  href: string;
}

export const DOC_TOOL_TABS: readonly DocToolTab[] = [
  { key: 'pdf', label: 'PDF', href: '/instrumente/pdf' },
  { key: 'dwg', label: 'DWG → DXF', href: '/instrumente/dwg' },
  { key: 'asistent', label: 'Asistent AI', href: '/instrumente/asistent' },
  { key: 'qgis', label: 'Acces QGIS', href: '/instrumente/qgis' },
];

/** The sections of /utilitare itself (tags, vault, address book), addressed by `?tab=`. */
export const OFFICE_TABS = [
  { key: 'etichete', label: 'Etichete', href: '/utilitare?tab=etichete' },
  { key: 'seif', label: 'Seif de parole', href: '/utilitare?tab=seif' },
  { key: 'agenda', label: 'Agendă', href: '/utilitare?tab=agenda' },
] as const satisfies readonly DocToolTab[];

export function ToolsLayout(props: { active: string; title: ReactNode; sub?: ReactNode; children: ReactNode }) {
  return (
    <div className="page">
      <header className="page-head">
        <p className="page-head__eyebrow">Utilitare</p>
        <h1 className="page-head__title">{props.title}</h1>
        {props.sub ? <p className="page-head__sub">{props.sub}</p> : null}
      </header>
      <nav className="tabs" aria-label="Utilitare">
        {[...OFFICE_TABS, ...DOC_TOOL_TABS].map((t) => (
          <Link
            key={t.key}
            to={t.href}
            prefetch="intent"
            className={`tabs__tab${props.active === t.key ? ' tabs__tab--active' : ''}`}
            aria-current={props.active === t.key ? 'page' : undefined}
            data-testid={`tab-${t.key}`}
          >
            {t.label}
          </Link>
        ))}
      </nav>
      <div className="tools__body">{props.children}</div>
    </div>
  );
}
