/**
 * The shell around every page: document, top bar (product, module navigation, signed-in user,
 * sign-out), the error boundary and the session check of spec 5.4.
 */
import type { ReactNode } from 'react';
import {
  Links,
  Meta,
  NavLink,
  Outlet,
  Scripts,
  ScrollRestoration,
  isRouteErrorResponse,
  useLocation,
  useRouteError,
  useRouteLoaderData,
} from '@remix-run/react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import stylesUrl from './styles/app.css?url';
import { navItemsFor } from './navigation';
import { companyLabel } from './lib/companies';
import { ErrorPanel } from './components/ErrorPanel';
import { maySignOut, requireSession } from './lib/auth.server';
import { unreadCountFor } from './lib/notifications.server';
import { NotificationBell } from './components/notifications/NotificationBell';
import type { Company } from '../../domain/auth/rules';

export const PRODUCT_NAME = 'Geoportal cadastral';

const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='7' fill='%230f766e'/%3E%3Cpath d='M8 10l8-4 8 4v12l-8 4-8-4z' fill='none' stroke='white' stroke-width='2' stroke-linejoin='round'/%3E%3Cpath d='M16 6v20M8 10l8 4 8-4' fill='none' stroke='white' stroke-width='2' stroke-linejoin='round'/%3E%3C/svg%3E";

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: stylesUrl },
  { rel: 'icon', href: FAVICON, type: 'image/svg+xml' },
];

export const meta: MetaFunction = () => [
  { title: PRODUCT_NAME },
  { name: 'description', content: 'Geoportal cadastral și serviciu de date despre parcele' },
];

export interface ShellUser {
  name: string;
  email: string;
  company: Company | null;
  isAdmin: boolean;
  /** False for the development bypass's stub user, who has no session to end. */
  canSignOut: boolean;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  const user: ShellUser = {
    name: auth.user.name,
    email: auth.user.email,
    company: auth.user.company,
    isAdmin: auth.isAdmin,
    canSignOut: maySignOut(auth),
  };
  // The bell starts from the real count; the browser then polls it.
  const unread = await unreadCountFor(context.services.notifications, auth.user.id).catch(() => 0);
  return { user, unread };
}

function BrandMark() {
  return (
    <svg className="brand__mark" viewBox="0 0 32 32" aria-hidden="true">
      <rect width="32" height="32" rx="7" />
      <path d="M8 10l8-4 8 4v12l-8 4-8-4z M16 6v20 M8 10l8 4 8-4" />
    </svg>
  );
}

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return (parts.length > 1 ? parts[0][0] + parts[parts.length - 1][0] : (parts[0] ?? '?').slice(0, 2)).toUpperCase();
}

function TopBar({ user, unread }: { user?: ShellUser; unread: number }) {
  const { pathname } = useLocation();
  return (
    <header className="topbar">
      <div className="topbar__inner">
        <a className="brand" href="/" aria-label={PRODUCT_NAME}>
          <BrandMark />
          <span className="brand__name">{PRODUCT_NAME}</span>
        </a>
        {user ? (
          <nav className="mainnav" aria-label="Module">
            {navItemsFor(user).map((item) => (
              <NavLink
                key={item.to}
                to={item.to}
                end={item.end}
                prefetch="intent"
                className={({ isActive }) => (isActive || item.also?.some((p) => pathname.startsWith(p)) ? 'mainnav__link is-active' : 'mainnav__link')}
              >
                {item.label}
              </NavLink>
            ))}
          </nav>
        ) : null}
        {user ? (
          <div className="account">
            <NotificationBell initialUnread={unread} />
            <span className="account__avatar" aria-hidden="true" title={`${user.name} · ${user.email}`}>
              {initials(user.name)}
            </span>
            <span className="account__who">
              <span className="account__name" data-testid="user-name">
                {user.name}
              </span>
              <span className="account__company" data-testid="user-company">
                {companyLabel(user.company)}
              </span>
            </span>
            {/* A plain form: /auth/logout is an Express route, the browser must really post. */}
            {user.canSignOut ? (
              <form method="post" action="/auth/logout" className="account__logout">
                <button type="submit" className="btn btn--ghost" data-testid="logout">
                  Deconectare
                </button>
              </form>
            ) : null}
          </div>
        ) : null}
      </div>
    </header>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>('root');
  return (
    <html lang="ro">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light" />
        <Meta />
        <Links />
      </head>
      <body>
        <TopBar user={data?.user} unread={data?.unread ?? 0} />
        <main className="page">{children}</main>
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

/** The Romanian `message` of an API error body, when a loader re-threw one. */
function messageOf(data: unknown): string | undefined {
  if (typeof data === 'string' && data.trim()) return data;
  if (data && typeof data === 'object' && typeof (data as { message?: unknown }).message === 'string') {
    return (data as { message: string }).message;
  }
  return undefined;
}

export function ErrorBoundary() {
  const error = useRouteError();
  let status: number | undefined;
  let title = 'A apărut o eroare neașteptată';
  let message = 'Pagina nu a putut fi afișată. Încercați din nou; dacă problema persistă, contactați administratorul.';
  if (isRouteErrorResponse(error)) {
    status = error.status;
    if (error.status === 404) {
      title = 'Pagina nu a fost găsită';
      message = 'Adresa cerută nu există sau a fost mutată.';
    } else if (error.status === 429) {
      title = 'Prea multe cereri';
      message = messageOf(error.data) ?? message;
    } else if (error.status === 401 || error.status === 403) {
      title = 'Acces refuzat';
      message = messageOf(error.data) ?? 'Nu aveți dreptul să vedeți această pagină.';
    } else {
      message = messageOf(error.data) ?? message;
    }
  }
  return <ErrorPanel status={status} title={title} message={message} />;
}
