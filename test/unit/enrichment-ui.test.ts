/**
 * The parcel-sync components render on the server: the SVG charts draw one bar / one arc per
 * datum, the enrichment fields honour the basic panel (restriction notice) and the basic scope.
 */
import { describe, expect, it } from '@jest/globals';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { BarChart, DonutChart } from '../../web/app/components/enrichment/Charts';
import { EnrichmentFields } from '../../web/app/components/enrichment/EnrichmentFields';
import { formatArea } from '../../web/app/components/enrichment/format';

describe('charts', () => {
  it('a bar chart has one bar per category, scaled to the largest', () => {
    const html = renderToStaticMarkup(createElement(BarChart, { title: 'Folosințe', data: [{ label: 'A', value: 100 }, { label: 'CC', value: 50 }] }));
    expect(html.match(/<rect /g)).toHaveLength(2);
    expect(html).toContain('width="320"');
    expect(html).toContain('width="160"');
  });

  it('a donut has one arc per slice and a legend with percentages', () => {
    const html = renderToStaticMarkup(createElement(DonutChart, { title: 'Intravilan', data: [{ label: 'Intravilan', value: 3 }, { label: 'Extravilan', value: 1 }] }));
    expect(html.match(/<circle /g)).toHaveLength(2);
    expect(html).toContain('(75%)');
    expect(html).toContain('(25%)');
  });

  it('empty data says so instead of drawing nothing', () => {
    expect(renderToStaticMarkup(createElement(DonutChart, { title: 'x', data: [] }))).toContain('Nu există date.');
  });
});

describe('enrichment fields', () => {
  const e = { NR_CAD: '104777', SUPRAFATA: 576, PROPRIETARI: 'Niţă Mioara (1/2)', NR_CF: '104777', HAS_BUILDING: 1, FOLOSINTE: [{ categorie: 'L', suprafata: 560, intravilan: 'DA' }] };

  it('basic panel users see the cadastral number, the area and the restriction notice only', () => {
    const html = renderToStaticMarkup(createElement(EnrichmentFields, { enrichment: { NR_CAD: '104777', SUPRAFATA: 576 }, restricted: true, redacted: false }));
    expect(html).toContain('104777');
    expect(html).toContain('576 m²');
    expect(html).toContain('Acces restricționat');
    expect(html).not.toContain('Proprietari');
  });

  it('full view lists every field with Romanian labels and the use categories', () => {
    const html = renderToStaticMarkup(createElement(EnrichmentFields, { enrichment: e, restricted: false, redacted: false }));
    expect(html).toContain('Proprietari actuali');
    expect(html).toContain('Niţă Mioara (1/2)');
    expect(html).toContain('Folosințe');
  });

  it('the basic scope shows personal fields as hidden', () => {
    const html = renderToStaticMarkup(createElement(EnrichmentFields, { enrichment: { ...e, PROPRIETARI: null, NR_CF: null }, restricted: false, redacted: true }));
    expect(html).toContain('ascuns (acces de bază)');
    expect(html).not.toContain('Niţă');
  });

  it('areas switch to hectares from one hectare up', () => {
    expect(formatArea(576)).toBe('576 m²');
    expect(formatArea(25_000)).toBe('2,5 ha');
  });
});
