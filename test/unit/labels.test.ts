/**
 * The one table of Romanian labels (domain/text/labels.ts, issue 42): what the live sync
 * progress, the sync tab's per-layer table, the weekend queue and the export file names say
 * instead of the code's words.
 */
import { describe, expect, test } from '@jest/globals';
import { layerCategoryLabel, layerLabel, syncPhaseLabel, WEEKEND_STEP_LABELS } from '../../domain/text/labels';
import { exportFileName } from '../../domain/exports/build';
import { describeSyncChanges } from '../../domain/landreg/sync/rules';
import { internalWords } from '../helpers/pageWalk';

describe('labels of internal codes', () => {
  test('the live progress names the layer, never its code', () => {
    expect(syncPhaseLabel('sync:TERENURI_ACTIVE')).toBe('Strat parcele');
    expect(syncPhaseLabel('sync:LIMITE_INTRAV_DYNAMIC')).toBe('Strat limite intravilan');
    expect(syncPhaseLabel('sync:TERENURI_INACTIVE')).toBe('Strat terenuri inactive');
    expect(syncPhaseLabel('plan')).toBe('Comparare cu portalul');
    expect(syncPhaseLabel(undefined)).toBe('Pornește');
    // A phase nobody named yet still reads as Romanian, not as the code's word.
    expect(syncPhaseLabel('rebuild')).toBe('În lucru');
  });

  test('layers by our name, else the catalogue name, else the code made readable; categories with diacritics', () => {
    expect(layerLabel('TERENURI_ACTIVE', 'Terenuri active')).toBe('Parcele');
    expect(layerLabel('CLADIRI_ACTIVE')).toBe('Clădiri');
    expect(layerLabel('PUG_ZONIFICARE', 'Zonificare PUG')).toBe('Zonificare PUG');
    expect(layerLabel('CAI_FERATE')).toBe('Cai ferate');
    expect(layerCategoryLabel('cladiri')).toBe('clădiri');
    expect(layerCategoryLabel('documentatii')).toBe('documentații');
    expect(layerCategoryLabel(null)).toBe('—');
  });

  test('sentences name unknown layers without their code', () => {
    expect(describeSyncChanges([{ layerId: 'TERENURI_INACTIVE', added: 1, removed: 0, changed: 0 }])).toBe('terenuri inactive: 1 adăugată');
  });

  test('the weekend activity and the complete export bundle in Romanian', () => {
    expect(`Ianca: ${WEEKEND_STEP_LABELS.enrich}`).toBe('Ianca: îmbogățire');
    const name = exportFileName('ghelinta-64318', { kind: 'bundle', mode: 'magic' }, new Date('2026-11-28T10:00:00Z'));
    expect(name).toBe('ghelinta-64318_export-complet_2026-11-28_1200.zip');
    expect(internalWords(name)).toEqual([]);
  });

  test('the internal-word scan finds what the walk must not show', () => {
    expect(internalWords('Strat TERENURI_ACTIVE · 0%; starea „processing”; /work/x/.data/test/tags.txt; docs/qgis.md; export-magic')).toEqual([
      'layer code: TERENURI_ACTIVE',
      'English state: processing',
      'export mode: magic',
      'server path: /work/x',
      'server path: .data/',
      'server path: docs/qgis.md',
    ]);
  });
});
