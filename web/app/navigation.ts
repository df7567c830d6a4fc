/**
 * The shell's navigation: one entry per module of spec section 1 that exists. A later issue that
 * ships a module adds its entry here (and nowhere else); nothing that does not exist is linked.
 */
export interface NavItem {
  /** Path inside the Remix app. */
  to: string;
  /** Romanian label shown in the top bar. */
  label: string;
  /** Active only on an exact match (for "/"). */
  end?: boolean;
  /** Further path prefixes that belong to this module (the entry is active on them too). */
  also?: readonly string[];
  /** Shown only to administrators. */
  adminOnly?: boolean;
}

export const NAV_ITEMS: readonly NavItem[] = [
  { to: '/', label: 'Acasă', end: true },
  { to: '/geoportal', label: 'Geoportal' },
  { to: '/parcel-sync', label: 'Sincronizare parcele' },
  { to: '/rgi', label: 'Documente RGI' },
  { to: '/infrastructura-harti', label: 'Infrastructură hărți' },
  { to: '/notificari', label: 'Notificări' },
  { to: '/registratura', label: 'Registratură' },
  { to: '/utilitare', label: 'Utilitare', also: ['/instrumente'] },
];

export function navItemsFor(user: { isAdmin: boolean }): NavItem[] {
  return NAV_ITEMS.filter((item) => !item.adminOnly || user.isAdmin);
}
