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

  it('long labels and long values are drawn whole, inside the chart (issue 30: labels were cut)', () => {
    const owner = 'COMUNA COMANDĂU (DOMENIUL PUBLIC)';
    const value = '1.234,5 ha · 12.345 parcele';
    const html = renderToStaticMarkup(createElement(BarChart, { title: 'Proprietari', data: [{ label: owner, value: 10, display: value }, { label: 'A', value: 5 }] }));
    expect(html).toContain(`>${owner}</text>`);
    expect(html).not.toContain('…');
    // The widest bar's value ends inside the viewBox: label column + bar + the value's own room.
    const width = Number(/viewBox="0 0 (\d+(?:\.\d+)?) /.exec(html)![1]);
    const valueX = Number(new RegExp(`x="(\\d+(?:\\.\\d+)?)" y="[^"]+" class="chart__value">${value.replace(/[.]/g, '\\.')}`).exec(html)![1]);
    expect(valueX + value.length * 6.6).toBeLessThanOrEqual(width);
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

  it('land-use codes come with their names (issue 30: a legend)', () => {
    const html = renderToStaticMarkup(
      createElement(EnrichmentFields, {
        enrichment: { ...e, CATEGORIE: 'CC:300; HB:20', FOLOSINTE: [{ categorie: 'CC', suprafata: 300, intravilan: 'DA' }, { categorie: 'HB', suprafata: 20, intravilan: 'NU' }] },
        restricted: false,
        redacted: false,
      }),
    );
    expect(html).toContain('data-testid="land-use-legend"');
    expect(html).toContain('<dt>CC</dt><dd>curți și construcții</dd>');
    expect(html).toContain('<dt>HB</dt><dd>ape stătătoare (lacuri, bălți)</dd>');
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
