/**
 * The notifications' pure rules (docs/notifications.md): the notification types, what a
 * notification carries, and the preference switches the API and the pages name. No I/O: other
 * areas' pure rules (domain/cfportal/rules.ts, which the CF workflow bundles) build notices with it.
 */

export const NOTIFICATION_TYPES = [
  'status-change',
  'county-sync-done',
  'registry-deadline',
  'weekend-sync-failed',
  'cf-extract-ready',
  'export-ready',
  'watch-change',
  'backup-failed',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface NotifyInput {
  userId: string;
  type: NotificationType;
  /** Romanian, shown in the inbox and as the e-mail subject. */
  title: string;
  body: string;
  /** Same-origin path of the item (`/registratura?id=…`); absolute in the e-mail. */
  link?: string;
  /** Stable per event and user (e.g. `cf-extract-ready:<extractId>`): a repeat is a no-op. */
  idempotencyKey?: string;
  /**
   * Never held back for the digest: e-mailed at once even when the user chose digest-only
   * (`instantEmail` off). A type the user turned off stays off.
   */
  critical?: boolean;
}

/** API key of each type's switch (camelCase of the type). */
export const PREFERENCE_KEY: Record<NotificationType, PreferenceTypeKey> = {
  'status-change': 'statusChange',
  'county-sync-done': 'countySyncDone',
  'registry-deadline': 'registryDeadline',
  'weekend-sync-failed': 'weekendSyncFailed',
  'cf-extract-ready': 'cfExtractReady',
  'export-ready': 'exportReady',
  'watch-change': 'watchChange',
  'backup-failed': 'backupFailed',
};
export type PreferenceTypeKey =
  | 'statusChange'
  | 'countySyncDone'
  | 'registryDeadline'
  | 'weekendSyncFailed'
  | 'cfExtractReady'
  | 'exportReady'
  | 'watchChange'
  | 'backupFailed';
export const PREFERENCE_KEYS = [...Object.values(PREFERENCE_KEY), 'dailyDigest', 'instantEmail'] as const;
export type PreferenceKey = (typeof PREFERENCE_KEYS)[number];
export type Preferences = Record<PreferenceKey, boolean>;

