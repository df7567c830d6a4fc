import { devBypassEnabled, evaluateFlags, type FlagSettings } from '../../domain/auth/flags';

const localDefaults: FlagSettings = {
  useCentralApi: false,
  centralApiPilotUsers: ['ioana@birou.ro', 'mihai@birou.ro', 'radu@birou.ro'],
  basicPanelUsers: ['elena@birou.ro'],
  panelBasicGlobal: false,
  portalOnlyUsers: [],
  adminEmails: [],
};

type Row = [string, { email: string; groups?: string[] }, Partial<FlagSettings>, { useCentralApi: boolean; basicPanel: boolean; isAdmin: boolean }];

const rows: Row[] = [
  ['an ordinary user stays on the legacy path', { email: 'dan@birou.ro' }, {}, { useCentralApi: false, basicPanel: false, isAdmin: false }],
  ['a pilot user gets the central API path', { email: 'ioana@birou.ro' }, {}, { useCentralApi: true, basicPanel: false, isAdmin: false }],
  ['pilot e-mails match case-insensitively', { email: 'Mihai@Birou.RO' }, {}, { useCentralApi: true, basicPanel: false, isAdmin: false }],
  ['USE_CENTRAL_API puts everyone on the central API path', { email: 'dan@birou.ro' }, { useCentralApi: true }, { useCentralApi: true, basicPanel: false, isAdmin: false }],
  ['a portal-only user stays on the legacy path even with USE_CENTRAL_API', { email: 'dan@birou.ro' }, { useCentralApi: true, portalOnlyUsers: ['dan@birou.ro'] }, { useCentralApi: false, basicPanel: false, isAdmin: false }],
  ['a portal-only user stays on the legacy path even when listed as pilot', { email: 'radu@birou.ro' }, { portalOnlyUsers: ['radu@birou.ro'] }, { useCentralApi: false, basicPanel: false, isAdmin: false }],
  ['a basic-panel user gets the basic panel', { email: 'elena@birou.ro' }, {}, { useCentralApi: false, basicPanel: true, isAdmin: false }],
  ['PANEL_BASIC_GLOBAL gives everyone the basic panel', { email: 'dan@birou.ro' }, { panelBasicGlobal: true }, { useCentralApi: false, basicPanel: true, isAdmin: false }],
  ['the admin group makes an admin', { email: 'ana@birou.ro', groups: ['admin'] }, {}, { useCentralApi: false, basicPanel: false, isAdmin: true }],
  ['ADMIN_EMAILS makes an admin without the group', { email: 'dan@birou.ro' }, { adminEmails: ['dan@birou.ro'] }, { useCentralApi: false, basicPanel: false, isAdmin: true }],
  ['other groups do not make an admin', { email: 'dan@birou.ro', groups: ['administratori', 'users'] }, {}, { useCentralApi: false, basicPanel: false, isAdmin: false }],
  ['flags combine independently', { email: 'ioana@birou.ro', groups: ['admin'] }, { basicPanelUsers: ['ioana@birou.ro'] }, { useCentralApi: true, basicPanel: true, isAdmin: true }],
];

describe('session feature flags (spec 5.6)', () => {
  test.each(rows)('%s', (_name, identity, overrides, expected) => {
    expect(evaluateFlags({ email: identity.email, groups: identity.groups ?? [], emailVerified: true }, { ...localDefaults, ...overrides })).toEqual(expected);
  });
});

describe('development bypass (spec 5.1)', () => {
  test.each([
    ['development with AUTH_DEV_BYPASS=1 bypasses sign-in', 'development', true, true],
    ['development without AUTH_DEV_BYPASS requires sign-in', 'development', false, false],
    ['production ignores AUTH_DEV_BYPASS', 'production', true, false],
    ['tests ignore AUTH_DEV_BYPASS', 'test', true, false],
    ['an unset NODE_ENV ignores AUTH_DEV_BYPASS', undefined, true, false],
  ] as const)('%s', (_name, nodeEnv, requested, expected) => {
    expect(devBypassEnabled(nodeEnv, requested)).toBe(expected);
  });
});
