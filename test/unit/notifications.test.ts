/** The pure rules of the notifications module: channel choice, digest sections. */
import { describe, expect, test } from '@jest/globals';
import { emailChannel } from '../../domain/notifications/notify';
import { bucharestDate, composeDigest } from '../../domain/notifications/digest';

describe('emailChannel', () => {
  const p = (instantEmail: boolean, dailyDigest: boolean, email: string | null = 'ana@birou.ro') => ({ email, instantEmail, dailyDigest });
  test('instant when chosen, digest otherwise, nothing when both are off', () => {
    expect(emailChannel(p(true, true), false)).toBe('instant');
    expect(emailChannel(p(false, true), false)).toBe('digest');
    expect(emailChannel(p(false, false), false)).toBeNull();
  });
  test('critical is never held back for the digest', () => {
    expect(emailChannel(p(false, true), true)).toBe('instant');
    expect(emailChannel(p(false, false), true)).toBe('instant');
  });
  test('no address, no e-mail', () => {
    expect(emailChannel(p(true, true, null), true)).toBeNull();
  });
});

describe('digest', () => {
  test('the Romanian calendar day, across midnight UTC', () => {
    expect(bucharestDate(new Date('2026-11-23T22:30:00Z'))).toBe('2026-11-24');
    expect(bucharestDate(new Date('2026-07-01T20:59:00Z'))).toBe('2026-07-01');
    expect(bucharestDate(new Date('2026-07-01T21:00:00Z'))).toBe('2026-07-02');
  });
  test('empty sections are left out; held items are split into watchlist and other', () => {
    const sections = composeDigest({
      registry: [{ id: 'r1', number: 'U-2026-00042', subject: 'Aviz de mediu', deadline: '2026-11-24' }],
      cf: [],
      syncs: [{ trigger: 'county', siruta: 42913, uatName: 'Însurăței', layers: 2, failed: 1, added: 3, removed: 0 }],
      held: [
        { id: 'n1', type: 'watch-change', title: 'Parcela 53747 s-a modificat', body: 'Modificări: proprietari.', link: '/geoportal?feature=x' },
        { id: 'n2', type: 'export-ready', title: 'Export gata', body: '', link: null },
      ],
    });
    expect(sections.map((s) => s.title)).toEqual(['Termene în registratură', 'Sincronizări pe județ (ultimele 24 de ore)', 'Parcele urmărite modificate', 'Alte notificări']);
    expect(sections[0].items[0]).toEqual({ text: 'U-2026-00042 — Aviz de mediu (termen 24.11.2026)', link: '/registratura?id=r1' });
    expect(sections[1].items[0].text).toBe('Însurăței: 2 straturi, 1 cu erori; 3 obiecte adăugate, 0 șterse');
    expect(sections[3].items[0]).toEqual({ text: 'Export gata.', link: null });
    expect(composeDigest({ registry: [], cf: [], syncs: [], held: [] })).toEqual([]);
  });
});
