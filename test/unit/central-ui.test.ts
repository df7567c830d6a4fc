/**
 * The feature panel on the central API path (issue 16, spec 5.4-5.6): the basic scope's
 * restriction notice, the central enrichment button, and a scope 403 that offers a new sign-in.
 */
import { describe, expect, it } from '@jest/globals';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { FeaturePanel } from '../../web/app/components/geoportal/FeaturePanel';
import { scopeProblem } from '../../web/app/lib/geoportal/api';
import { ApiError } from '../../web/app/lib/api';

const feature = {
  id: '0b7c3c1e-4e7a-5a55-8f55-2f0d3b1a9c10',
  layerId: 'TERENURI_ACTIVE',
  siruta: 42682,
  uatName: 'Sfântu Gheorghe',
  objectId: 258400001,
  cadastralRef: '1000',
  areaValue: 812,
  isActive: true,
  geometrySource: null,
  attributes: null,
  enrichment: { NR_CAD: '1000', NR_CF: null, PROPRIETARI: null, CATEGORIE: 'CC:812' },
  enrichedAt: null,
  geometry: null,
};
const render = (props: Record<string, unknown>) => renderToStaticMarkup(createElement(FeaturePanel, { onClose: () => {}, ...props } as never));

describe('feature panel on the central path', () => {
  it('shows the basic scope notice and the central enrichment button', () => {
    const html = render({ state: { feature }, central: true, basicScope: true });
    expect(html).toContain('data-testid="scope-notice"');
    expect(html).toContain('acces de bază');
    expect(html).toContain('data-testid="central-enrich-button"');
    expect(html).toContain('Îmbogățește parcela');
  });

  it('shows neither for a legacy-path user with the full scope', () => {
    const html = render({ state: { feature } });
    expect(html).not.toContain('scope-notice');
    expect(html).not.toContain('central-enrich-button');
  });

  it('offers CF extracts only to a viewer with the personal-data right (CONTRACT 6)', () => {
    for (const central of [false, true]) {
      expect(render({ state: { feature }, central })).toContain('data-testid="cf-status-button"');
      const restricted = render({ state: { feature }, central, basicScope: true });
      expect(restricted).not.toContain('cf-status-button');
      expect(restricted).not.toContain('cf-order-link');
    }
  });

  it('offers a new sign-in after scope_insufficient', () => {
    const html = render({ state: { error: 'Contul nu are dreptul.', signInAgain: true }, central: true });
    expect(html).toContain('data-testid="sign-in-again"');
    expect(html).toContain('Autentificați-vă din nou');
  });

  it('knows which 403s a new sign-in may cure', () => {
    expect(scopeProblem(new ApiError('x', 403, 'scope_insufficient'))).toBe(true);
    expect(scopeProblem(new ApiError('x', 403, 'insufficient_scope'))).toBe(true);
    expect(scopeProblem(new ApiError('x', 403, 'forbidden'))).toBe(false);
    expect(scopeProblem(new Error('x'))).toBe(false);
  });
});
