/**
 * The shell's navigation: one entry per module of spec section 1 that exists, read from the areas'
 * records (domain/areas.ts); nothing that does not exist is linked.
 */
import { areaNavEntries, type NavEntry } from '../../domain/areas';
export interface NavItem extends Omit<NavEntry, 'position'> {
  /** Active only on an exact match (for "/"). */
  end?: boolean;
}

/** Home, then every area's pages in spec 1's order (domain/areas.ts: an area adds its entry there). */
export const NAV_ITEMS: readonly NavItem[] = [{ to: '/', label: 'Acasă', end: true }, ...areaNavEntries().map(({ position: _p, ...item }) => item)];

export function navItemsFor(user: { isAdmin: boolean }): NavItem[] {
  return NAV_ITEMS.filter((item) => !item.adminOnly || user.isAdmin);
}
