/** Home page: who is signed in and the live state of the infrastructure. */
import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { requireSession } from '../lib/auth.server';
import { loadHealth } from '../lib/health.server';
import { companyLabel } from '../lib/companies';
import type { HealthReport } from '../lib/health';
import { HealthLine } from '../components/HealthLine';
import { Card } from '../components/Card';

export const meta: MetaFunction = () => [{ title: 'Acasă · Geoportal cadastral' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  // On an unexpected failure the browser asks /api/health right away instead.
  const health: HealthReport | null = await loadHealth(context.store, auth.isAdmin).catch(() => null);
  return {
    user: {
      name: auth.user.name,
      email: auth.user.email,
      company: auth.user.company,
      isAdmin: auth.isAdmin,
      useCentralApi: auth.useCentralApi,
    },
    health,
  };
}

export default function Home() {
  const { user, health } = useLoaderData<typeof loader>();
  return (
    <div className="home">
      <header className="page-head">
        <p className="page-head__eyebrow">Acasă</p>
        <h1 className="page-head__title" data-testid="greeting">
          Bun venit, {user.name}!
        </h1>
        <p className="page-head__sub">
          <span data-testid="greeting-email">{user.email}</span>
          <span className="dot-sep" aria-hidden="true" />
          <span data-testid="greeting-company">{companyLabel(user.company)}</span>
        </p>
      </header>

      <HealthLine initial={health} />

      <div className="grid grid--2">
        <Card title="Contul dumneavoastră">
          <dl className="facts">
            <div>
              <dt>Nume</dt>
              <dd>{user.name}</dd>
            </div>
            <div>
              <dt>E-mail</dt>
              <dd>{user.email}</dd>
            </div>
            <div>
              <dt>Companie</dt>
              <dd>{companyLabel(user.company)}</dd>
            </div>
            <div>
              <dt>Rol</dt>
              <dd>{user.isAdmin ? 'Administrator' : 'Utilizator'}</dd>
            </div>
            <div>
              <dt>Sursa datelor</dt>
              <dd>{user.useCentralApi ? 'API-ul central GIS' : 'Depozitul local'}</dd>
            </div>
          </dl>
        </Card>

        <Card title="Despre serviciu">
          <p className="prose">
            Geoportalul reunește harta parcelelor, clădirilor și limitelor administrative, sincronizarea cu
            portalul de cadastru, comenzile de extrase CF, registratura și notificările.
          </p>
          <p className="prose prose--muted">
            Modulele apar în bara de navigare pe măsură ce devin disponibile.
          </p>
        </Card>
      </div>
    </div>
  );
}
