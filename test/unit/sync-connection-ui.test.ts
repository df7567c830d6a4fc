/**
 * The shared portal account's card (/parcel-sync): "Deconectare" disconnects the account for the
 * whole office, which only administrators may do (issue 25), so only they see it (issue 30).
 */
import { describe, expect, it } from '@jest/globals';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { ConnectionCard } from '../../web/app/components/sync/SyncTab';

const session = {
  connected: true,
  username: 'birou.cadastru',
  connectedAt: '2026-11-25T08:00:00Z',
  runningJobs: 0,
  portalAvailable: true,
  portalMaintenance: false,
  lastHealthCheckAt: '2026-11-25T08:03:00Z',
  consecutiveFailures: 0,
};
const render = (isAdmin: boolean, connected = true) => renderToStaticMarkup(createElement(ConnectionCard, { session: { ...session, connected }, isAdmin, onChange: () => {} }));

describe('portal connection card', () => {
  it('an ordinary user sees the connection but no disconnect button', () => {
    const html = render(false);
    expect(html).toContain('birou.cadastru');
    expect(html).not.toContain('Deconectare');
    expect(html).not.toContain('sync-disconnect');
  });

  it('an administrator gets the disconnect button', () => {
    expect(render(true)).toContain('data-testid="sync-disconnect"');
  });

  it('anyone may connect a disconnected account (spec 3.1)', () => {
    expect(render(false, false)).toContain('data-testid="sync-connect"');
  });
});
