/**
 * The shell's navigation: one entry per module of spec section 1 that exists. A later issue that
 * ships a module adds its entry here (and nowhere else); nothing that does not exist is linked.
 *
 * Modules still to come, in the order of spec section 1: Geoportal (/geoportal), Sincronizare
 * parcele (/sincronizare), Extrase CF (/extrase-cf), Registratură (/registratura),
 * Notificări (/notificari).
 */
export interface NavItem {
  /** Path inside the Remix app. */
  to: string;
  /** Romanian label shown in the top bar. */
  label: string;
  /** Active only on an exact match (for "/"). */
  end?: boolean;
  /** Shown only to administrators. */
  adminOnly?: boolean;
}

export const NAV_ITEMS: readonly NavItem[] = [
  { to: '/', label: 'Acasă', end: true },
  { to: '/geoportal', label: 'Geoportal' },
  { to: '/parcel-sync', label: 'Sincronizare parcele' },
  { to: '/infrastructura-harti', label: 'Infrastructură hărți' },
  { to: '/utilitare', label: 'Utilitare' },
];

export function navItemsFor(user: { isAdmin: boolean }): NavItem[] {
  return NAV_ITEMS.filter((item) => !item.adminOnly || user.isAdmin);
}
