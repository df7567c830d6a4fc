/** /geoportal: the map of spec 4.1 (components/geoportal/GeoportalMap.tsx), on the central API path for pilot users. */
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import maplibreCss from 'maplibre-gl/dist/maplibre-gl.css?url';
import geoportalCss from '../styles/geoportal.css?url';
// The UAT filter is the parcel-sync pages' UAT picker, styled there.
import parcelSyncCss from '../styles/parcel-sync.css?url';
import { requireSession } from '../lib/auth.server';
import { viewerOf } from '../../../domain/auth/rules';
import { GeoportalMap } from '../components/geoportal/GeoportalMap';

export const meta: MetaFunction = () => [{ title: 'Geoportal · Geoportal cadastral' }];

// Bundled by Vite from node_modules: no CDN, works offline.
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: maplibreCss },
  { rel: 'stylesheet', href: parcelSyncCss },
  { rel: 'stylesheet', href: geoportalCss },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  // Scope basic or none (or no claim): personal fields withheld and no CF extracts (CONTRACT 6).
  return { basicPanel: auth.basicPanel, central: auth.useCentralApi, basicScope: !viewerOf(auth).personalData };
}

export default function GeoportalPage() {
  const { basicPanel, central, basicScope } = useLoaderData<typeof loader>();
  return <GeoportalMap basicPanel={basicPanel} central={central} basicScope={basicScope} />;
}
