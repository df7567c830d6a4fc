/**
 * The one place that reads the environment. Every port, URL and credential of the stack has a
 * default for the embedded local stack and can be overridden by an environment variable of the
 * same name (documented in .env.example). `STACK_PROFILE=test` shifts every default port by
 * +100 and the data directory to `.data/test`, so `npm test` can run beside `npm start`;
 * `STACK_PROFILE=bench` (npm run bench) shifts by +200 into `.data/bench`.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const env = process.env;
const PROFILE_PORT_SHIFT = { dev: 0, test: 100, bench: 200 } as const;
type Profile = keyof typeof PROFILE_PORT_SHIFT;
const profile: Profile = env.STACK_PROFILE === 'test' || env.STACK_PROFILE === 'bench' ? env.STACK_PROFILE : 'dev';
// STACK_PORT_SHIFT overrides the profile's shift, so several clones can each run a test stack.
const portShift = env.STACK_PORT_SHIFT ? Number(env.STACK_PORT_SHIFT) : PROFILE_PORT_SHIFT[profile];

function str(name: string, fallback: string): string {
  const v = env[name];
  return v !== undefined && v !== '' ? v : fallback;
}
/**
 * Secrets with a development default. Each one read through `secret()` is checked at a production
 * start (assertProductionSecrets): new areas declare theirs the same way and are covered.
 */
const SECRETS: Array<{ name: string; devDefault: string; requiredWith?: string; issuedElsewhere: boolean }> = [];
/** Our own secrets (keys, tokens, passwords we generate) must be at least this long in production. */
export const MIN_SECRET_LENGTH = 32;
interface SecretOptions {
  /**
   * The secret of an outside service is only required once that service is pointed at a real
   * system (its `*_URL` variable set); without it the feature is simply not configured.
   */
  requiredWith?: string;
  /**
   * A credential another system issues (an identity-provider client secret, a portal account's
   * password, a vendor's API key): its length is that system's rule, not ours.
   */
  issuedElsewhere?: boolean;
}
function secret(name: string, devDefault: string, opts: SecretOptions = {}): string {
  SECRETS.push({ name, devDefault, requiredWith: opts.requiredWith, issuedElsewhere: opts.issuedElsewhere ?? false });
  return str(name, devDefault);
}
function int(name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number.parseInt(v, 10);
  if (!Number.isFinite(n)) throw new Error(`Environment variable ${name} must be an integer`);
  return n;
}
function list(name: string, fallback: string): string[] {
  return str(name, fallback)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}
function flag(name: string, fallback = false): boolean {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  return v === '1' || v.toLowerCase() === 'true';
}

/**
 * TRUST_PROXY as express's `trust proxy` takes it: `true`/`false`, a hop count, or a list of
 * addresses, subnets and the names loopback, linklocal, uniquelocal. The default trusts only a
 * proxy on this host: a request's X-Forwarded-For from anywhere else is ignored, so a client
 * cannot pick the address the rate limits key on.
 */
export function trustProxySetting(raw: string | undefined): boolean | number | string {
  const v = (raw ?? '').trim();
  if (v === '') return 'loopback';
  if (/^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

const port = (name: string, base: number) => int(name, base + portShift);

const appPort = port('PORT', 3000);
const pgPort = port('PGPORT', 55432);
const oidcPort = port('OIDC_PORT', 4010);
const landregPort = port('LANDREG_SIM_PORT', 4020);
const statusAuthorityPort = port('STATUS_AUTHORITY_SIM_PORT', 4050);
const cfportalPort = port('CFPORTAL_SIM_PORT', 4030);
const centralSimPort = port('CENTRAL_API_SIM_PORT', 4040);
const pdfServicePort = port('PDF_SERVICE_SIM_PORT', 4060);
const aiSimPort = port('AI_SIM_PORT', 4070);
const dwgConverterPort = port('DWG_CONVERTER_PORT', 4080);

// Portal politeness (docs/sync.md, "Portal politeness"): ONE budget of portal requests per second,
// enforced per process by the client's token bucket and for the whole landreg task queue by its
// activity rate: a layer-sync download activity makes at most LANDREG_SYNC_PAGES_PER_ACTIVITY page
// requests, so activities/s × pages per activity ≤ the budget. In flight: at most
// LANDREG_SYNC_PARALLEL_DOWNLOADS pages per sync and LANDREG_MAX_CONCURRENT_ACTIVITIES per worker.
const landregRequestsPerSecond = int('LANDREG_REQUESTS_PER_SECOND', 50);
const landregSyncPagesPerActivity = Math.max(1, int('LANDREG_SYNC_PAGES_PER_ACTIVITY', 10));

export const AI_PROVIDERS = ['openai', 'anthropic', 'ollama'] as const;
export type AiProviderName = (typeof AI_PROVIDERS)[number];

export interface AiSettings {
  /** AI_PROVIDER: an explicit choice (`demo` forces demo mode); null = the first configured. */
  provider: AiProviderName | 'demo' | null;
  openai: { baseUrl: string; apiKey: string; model: string };
  anthropic: { baseUrl: string; apiKey: string; model: string };
  /** Ollama has no key: a set URL is what makes it configured. */
  ollama: { url: string; model: string };
  /** One upstream call's deadline (the whole answer, streamed or not). */
  timeoutMs: number;
  maxTokens: number;
  /** Port of the AI simulator (one server for the three protocols). */
  simPort: number;
  /** The providers were pointed at the simulator by the development defaults. */
  simulatorDefaults: boolean;
}

/** The development key the simulator defaults use; any non-empty key opens the simulator. */
export const AI_SIMULATOR_DEV_KEY = 'dev-ai-simulator-key';
const AI_VARIABLES = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'OLLAMA_URL'] as const;

/**
 * The AI settings from an environment (the process's, or a test's own). Outside production, with
 * none of the provider variables present and AI_SIMULATOR not `0`, all three providers point at
 * the simulator with a development key, so `npm start` chats through the real clients out of
 * the box; once any provider variable is present only what is set counts, as in production,
 * where a missing key simply means "not configured".
 */
export function aiSettingsFrom(source: Readonly<Record<string, string | undefined>>, simPort: number): AiSettings {
  const get = (name: string, fallback = '') => {
    const v = source[name];
    return v !== undefined && v !== '' ? v.trim() : fallback;
  };
  // Production as the secret check reads it: every NODE_ENV but development and test.
  const production = isProductionEnv(source);
  const simulatorDefaults = !production && get('AI_SIMULATOR', '1') !== '0' && AI_VARIABLES.every((n) => source[n] === undefined);
  const sim = `http://127.0.0.1:${simPort}`;
  const chosen = get('AI_PROVIDER').toLowerCase();
  const provider = chosen === 'demo' || (AI_PROVIDERS as readonly string[]).includes(chosen) ? (chosen as AiProviderName | 'demo') : null;
  if (chosen && !provider) throw new Error(`AI_PROVIDER must be one of ${AI_PROVIDERS.join(', ')} or demo`);
  const n = (name: string, fallback: number) => {
    const v = Number.parseInt(get(name), 10);
    return Number.isFinite(v) && v > 0 ? v : fallback;
  };
  return {
    provider,
    openai: {
      baseUrl: get('OPENAI_BASE_URL', simulatorDefaults ? `${sim}/v1` : 'https://api.openai.com/v1').replace(/\/+$/, ''),
      apiKey: get('OPENAI_API_KEY', simulatorDefaults ? AI_SIMULATOR_DEV_KEY : ''),
      model: get('OPENAI_MODEL', 'gpt-4o-mini'),
    },
    anthropic: {
      baseUrl: get('ANTHROPIC_BASE_URL', simulatorDefaults ? sim : 'https://api.anthropic.com').replace(/\/+$/, ''),
      apiKey: get('ANTHROPIC_API_KEY', simulatorDefaults ? AI_SIMULATOR_DEV_KEY : ''),
      model: get('ANTHROPIC_MODEL', 'claude-sonnet-4-6'),
    },
    ollama: {
      url: get('OLLAMA_URL', simulatorDefaults ? sim : '').replace(/\/+$/, ''),
      model: get('OLLAMA_MODEL', 'llama3.1'),
    },
    timeoutMs: n('AI_TIMEOUT_MS', 60_000),
    maxTokens: n('AI_MAX_TOKENS', 1024),
    simPort,
    simulatorDefaults,
  };
}

/** The local stack starts the AI simulator when a provider points at it. */
export function aiUsesSimulator(s: AiSettings): boolean {
  const sim = `http://127.0.0.1:${s.simPort}`;
  const local = (u: string) => u.startsWith(sim) || u.startsWith(`http://localhost:${s.simPort}`);
  return local(s.openai.baseUrl) || local(s.anthropic.baseUrl) || local(s.ollama.url);
}

export const config = {
  profile,
  nodeEnv: str('NODE_ENV', 'production'),
  dataDir: path.resolve(projectRoot, str('DATA_DIR', `.data/${profile}`)),
  toolsDir: str('TOOLS_DIR', path.join(env.HOME ?? '/root', '.cache', 'cadastral-geoportal', 'tools')),
  logLevel: str('LOG_LEVEL', profile === 'dev' ? 'info' : 'warn'),

  app: {
    port: appPort,
    /**
     * The port the web process listens on: PORT, or the one the launcher gives it when the tile
     * gateway takes PORT in front of it (WEB_INTERNAL_PORT, docs/tiles.md "The tile gateway").
     */
    listenPort: int('WEB_LISTEN_PORT', appPort),
    publicUrl: str('PUBLIC_URL', `http://localhost:${appPort}`),
    sessionSecret: secret('SESSION_SECRET', 'dev-session-secret-change-me-0123456789'),
    /**
     * How long a process answers a session from memory before reading app_sessions again (0 = read
     * on every request). A logout through this process takes effect at once; one through another
     * process within this time, or at once in shared mode (api/auth/sessionStore.ts).
     */
    sessionCacheTtlMs: int('SESSION_CACHE_TTL_MS', 5000),
    /**
     * Web processes on this machine (`WEB`, api/server.ts forks them behind one port with Node's
     * cluster); more than one turns shared mode on.
     */
    webProcesses: Math.max(1, int('WEB', 1)),
    /**
     * Shared mode (issue 44 item 3): the rate limits, the heavy-work caps and the session cache
     * hold across every web process through PostgreSQL (domain/limits/). On with WEB > 1, or with
     * SHARED_LIMITS=1 when the processes run on several hosts; off, they cost nothing.
     */
    sharedLimits: int('WEB', 1) > 1 || str('SHARED_LIMITS', '0') === '1',
    /** In shared mode, how long a killed process's heavy-work slots stay taken (renewed meanwhile). */
    workSlotLeaseMs: Math.max(1000, int('WORK_SLOT_LEASE_MS', 30_000)),
    /** CONTRACT.md section 5: per user on /api/*, and per bearer token on token routes. */
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 600),
    tokenRateLimitPerMinute: int('TOKEN_RATE_LIMIT_PER_MINUTE', 60),
    /** Wrong tokens (401 answers, Bearer or Basic) one address may send a minute before it gets 429s. */
    bearerFailuresPerMinute: int('BEARER_FAILURES_PER_MINUTE', 20),
    /**
     * Days a personal access token signs in with an identity the provider has not confirmed again
     * (no sign-in or session refresh of its user): a scope narrowed at the provider must reach a
     * QGIS-only user's token too.
     */
    tokenIdentityMaxAgeDays: Math.max(1, int('TOKEN_IDENTITY_MAX_AGE_DAYS', 30)),
    /** Which proxies' X-Forwarded-For names the client (express `trust proxy`; trustProxySetting). */
    trustProxy: trustProxySetting(env.TRUST_PROXY),
  },

  db: {
    binDir: str('PG_BIN_DIR', '/usr/lib/postgresql/15/bin'),
    /** Pool guards (domain/db/pool.ts): waiting for a connection, one statement, an idle open transaction. */
    connectTimeoutMs: int('PG_CONNECT_TIMEOUT_MS', 10_000),
    statementTimeoutMs: int('PG_STATEMENT_TIMEOUT_MS', 600_000),
    idleInTransactionTimeoutMs: int('PG_IDLE_IN_TRANSACTION_TIMEOUT_MS', 60_000),
    /** Set: an external database, so the launcher starts none. */
    external: !!env.DATABASE_URL,
    host: str('PGHOST', '127.0.0.1'),
    port: pgPort,
    user: str('PGUSER', 'geoportal'),
    password: secret('PGPASSWORD', 'geoportal'),
    database: str('PGDATABASE', 'geoportal'),
    get url(): string {
      return str(
        'DATABASE_URL',
        `postgresql://${encodeURIComponent(this.user)}:${encodeURIComponent(this.password)}@${this.host}:${this.port}/${this.database}`,
      );
    },
    /**
     * The readers' server (domain/db/readers.ts): tiles, OGC, search and the feature panel read
     * here. Default: the primary (`url`), and then no second pool is opened.
     */
    get readUrl(): string {
      return str('DATABASE_READ_URL', this.url);
    },
    /** `REPLICA=1 npm start`: the launcher starts a streaming replica of its primary for the readers. */
    localReplica: flag('REPLICA'),
    /** The local stack's streaming replica: its port. */
    replicaPort: port('REPLICA_PGPORT', 55433),
    /** Connections of the replica's plain-query pool in each process (the tile pool has its own cap). */
    readPoolMax: int('DATABASE_READ_POOL_MAX', 10),
    /** How long readers stay on the primary after the replica failed, before they try it again. */
    replicaRetryMs: int('REPLICA_RETRY_MS', 5_000),
  },

  temporal: {
    address: str('TEMPORAL_ADDRESS', `127.0.0.1:${port('TEMPORAL_PORT', 7233)}`),
    port: port('TEMPORAL_PORT', 7233),
    uiPort: port('TEMPORAL_UI_PORT', 8233),
    namespace: str('TEMPORAL_NAMESPACE', 'default'),
    /** The dev server is started by the local stack unless the address points elsewhere. */
    embedded: !env.TEMPORAL_ADDRESS,
  },

  /** Temporal workers (workers/main.ts). */
  workers: {
    /**
     * Worker processes the local stack starts (scripts/stack.ts), each polling every task queue:
     * Temporal hands each task to whichever poller asks first, so they share the work.
     */
    processes: Math.max(1, int('WORKERS', 1)),
    /** This process's name in its Temporal worker identity `<name>@<host>:<pid>` (the stack names them workers-1…N). */
    name: str('WORKER_NAME', 'workers'),
    /** Comma-separated task queues this process serves; empty = every queue with registered work. */
    queues: list('WORKER_QUEUES', ''),
    /**
     * Task-queue-wide cap on landreg activities started per second, shared by all landreg workers;
     * by default the politeness budget over the pages of one download activity (50 / 10 = 5).
     */
    landregActivitiesPerSecond: int(
      'LANDREG_ACTIVITIES_PER_SECOND',
      Math.max(1, Math.floor(landregRequestsPerSecond / landregSyncPagesPerActivity)),
    ),
    landregMaxConcurrentActivities: int('LANDREG_MAX_CONCURRENT_ACTIVITIES', 4),
    /** This process's place among the stack's worker processes (0…WORKERS-1; the stack sets it). */
    index: int('WORKER_INDEX', 0),
    /**
     * The metrics port of worker 0 (CONTRACT.md section 6); worker i serves on this + i, so
     * WORKERS=N processes on one host never collide. Shifted with the stack's ports.
     */
    metricsBasePort: port('WORKER_METRICS_PORT', 9464),
    /** Where the worker metrics listen: all interfaces in a container, loopback on a developer's machine. */
    metricsHost: str('WORKER_METRICS_HOST', '127.0.0.1'),
  },

  /** Scheduled syncs (docs/scheduling.md). */
  scheduling: {
    /**
     * UAT syncs (kind `sync`, any starter) the rule scheduler lets run at once; it starts no more
     * than the difference, so scheduled work stays inside the portal's request budget.
     */
    maxParallelSyncs: int('SCHEDULER_MAX_PARALLEL_SYNCS', 2),
    /**
     * Spec 8 "default weekend cities: 9": SIRUTA codes the weekend queue starts with, added once by
     * the seed step (domain/scheduling/weekend.ts seedWeekendQueue) when the catalogue knows them.
     * Default: real cities of the demo counties (Brăila, Covasna, Ilfov), the largest of each first;
     * `WEEKEND_SYNC_DEFAULT_CITIES=none` starts with an empty queue.
     */
    weekendDefaultCities: list('WEEKEND_SYNC_DEFAULT_CITIES', '42682,63394,100576,63740,179551,42753,63526,179481,43331')
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0),
  },

  s3: {
    port: port('MINIO_PORT', 9000),
    consolePort: port('MINIO_CONSOLE_PORT', 9001),
    get endpoint(): string {
      return str('S3_ENDPOINT', `http://127.0.0.1:${this.port}`);
    },
    region: str('S3_REGION', 'eu-central-1'),
    accessKeyId: str('S3_ACCESS_KEY', 'geoportal'),
    secretAccessKey: secret('S3_SECRET_KEY', 'geoportal-secret'),
    buckets: {
      cf: str('S3_BUCKET_CF', 'cf-extracts'),
      exports: str('S3_BUCKET_EXPORTS', 'exports'),
      attachments: str('S3_BUCKET_ATTACHMENTS', 'attachments'),
      tiles: str('S3_BUCKET_TILES', 'tiles'),
    },
    embedded: !env.S3_ENDPOINT,
  },

  /**
   * Backups (docs/operations.md "Backups"): pgBackRest archives the WAL continuously into an S3
   * repository and takes the nightly backups; the object store's buckets are mirrored beside it.
   * pgBackRest speaks S3 over HTTPS only: `BACKUP_S3_ENDPOINT` names an HTTPS endpoint (any S3);
   * unset, the local stack puts a TLS front before MinIO on `BACKUP_S3_TLS_PORT`.
   */
  backup: {
    bucket: str('S3_BUCKET_BACKUPS', 'backups'),
    /** Repository path inside the bucket, and pgBackRest's stanza (one per database cluster). */
    repoPath: str('BACKUP_REPO_PATH', '/pgbackrest'),
    stanza: str('BACKUP_STANZA', 'geoportal'),
    tlsPort: port('BACKUP_S3_TLS_PORT', 9002),
    get s3Endpoint(): string {
      return str('BACKUP_S3_ENDPOINT', `https://127.0.0.1:${this.tlsPort}`);
    },
    /** Set: the backups go to an HTTPS endpoint of their own, and the stack starts no TLS front. */
    externalEndpoint: !!env.BACKUP_S3_ENDPOINT,
    /** The data directory of a server the stack does not start (a container's volume); empty: the stack's. */
    pgData: str('PGDATA', ''),
    /** Our own TLS front has a self-signed certificate; a real S3 endpoint's is verified. */
    verifyTls: flag('BACKUP_S3_VERIFY_TLS', !!env.BACKUP_S3_ENDPOINT),
    /** The CA that signed the S3 endpoint's certificate, when it is not a public one (the compose's TLS front). */
    s3CaFile: str('BACKUP_S3_CA_FILE', ''),
    /** The TLS front's address and certificate (empty: loopback, and a self-signed one made in the data directory). */
    tlsFrontHost: str('BACKUP_S3_TLS_HOST', '127.0.0.1'),
    tlsFrontCertFile: str('BACKUP_S3_TLS_CERT_FILE', ''),
    tlsFrontKeyFile: str('BACKUP_S3_TLS_KEY_FILE', ''),
    /**
     * pgBackRest's TLS server on the database's host, for workers that do not run beside the
     * database (the compose deployment): the backup reads the data directory through it, with a
     * client certificate its CA signed. Empty: the data directory is local.
     */
    pgHost: str('BACKUP_PG_HOST', ''),
    pgHostPort: int('BACKUP_PG_HOST_PORT', 8432),
    tlsCaFile: str('BACKUP_TLS_CA_FILE', ''),
    tlsCertFile: str('BACKUP_TLS_CERT_FILE', ''),
    tlsKeyFile: str('BACKUP_TLS_KEY_FILE', ''),
    /** Set: the repository is encrypted (aes-256-cbc) with it. Never logged. */
    encryptionKey: str('BACKUP_ENCRYPTION_KEY', ''),
    retention: {
      daily: int('BACKUP_KEEP_DAILY', 7),
      weekly: int('BACKUP_KEEP_WEEKLY', 4),
      monthly: int('BACKUP_KEEP_MONTHLY', 6),
    },
    /** A backup older than this (hours) is late: health turns red and the administrators are told. */
    maxAgeHours: int('BACKUP_MAX_AGE_HOURS', 26),
    pgbackrest: str('PGBACKREST', 'pgbackrest'),
  },

  mail: {
    smtpHost: str('SMTP_HOST', '127.0.0.1'),
    smtpPort: port('SMTP_PORT', 1025),
    webPort: port('MAILDEV_WEB_PORT', 1080),
    from: str('MAIL_FROM', 'Geoportal <geoportal@birou.ro>'),
    get webUrl(): string {
      return str('MAILDEV_URL', `http://127.0.0.1:${this.webPort}`);
    },
    embedded: !env.SMTP_HOST,
  },

  oidc: {
    port: oidcPort,
    issuer: str('OIDC_ISSUER', `http://localhost:${oidcPort}`),
    clientId: str('OIDC_CLIENT_ID', 'geoportal'),
    clientSecret: secret('OIDC_CLIENT_SECRET', 'geoportal-dev-secret', { issuedElsewhere: true }),
    refreshTimeoutMs: 8000, // spec 5.4: the refresh call has an 8 s timeout
    /** Scopes the service asks for; the dev IdP puts company/groups/enrichment_scope under profile. */
    scopes: str('OIDC_SCOPES', 'openid email profile'),
    /** Access-token lifetime of the development identity provider (seconds). */
    accessTokenTtlSeconds: int('OIDC_ACCESS_TOKEN_TTL', 60),
    /** AUTH_DEV_BYPASS=1 asks for the stub user; honoured only when NODE_ENV=development (spec 5.1). */
    devBypassRequested: flag('AUTH_DEV_BYPASS'),
    embedded: !env.OIDC_ISSUER,
  },

  landreg: {
    simPort: landregPort,
    baseUrl: str('LANDREG_BASE_URL', `http://127.0.0.1:${landregPort}`),
    username: str('LANDREG_USERNAME', 'geoportal'),
    password: secret('LANDREG_PASSWORD', 'parola-portal', { issuedElsewhere: true }),
    embedded: !env.LANDREG_BASE_URL,
    /** Simulator only: seed, scale (demo | bench | national), idle session lifetime, reference data. */
    simSeed: int('LANDREG_SIM_SEED', 42),
    simScale: str('LANDREG_SIM_SCALE', 'demo'),
    simSessionTtlSeconds: int('LANDREG_SIM_SESSION_TTL_SECONDS', 600),
    simDataDir: path.resolve(projectRoot, str('LANDREG_SIM_DATA_DIR', 'data/reference')),
    /** Portal client (domain/landreg): one HTTP call's deadline, and a per-process call rate cap. */
    requestTimeoutMs: int('LANDREG_REQUEST_TIMEOUT_MS', 30_000),
    /** Idempotent portal calls (GET) are tried again this many times on a 5xx, a timeout or no answer. */
    retryAttempts: int('LANDREG_RETRY_ATTEMPTS', 2),
    retryBaseDelayMs: int('LANDREG_RETRY_BASE_DELAY_MS', 250),
    /** Overall deadline of an API request that waits on the portal (search, enrich, debug). */
    apiDeadlineMs: int('LANDREG_API_DEADLINE_MS', 90_000),
    requestsPerSecond: landregRequestsPerSecond,
    /** Layer sync (docs/sync.md): pages of one download activity, and activities run at once per layer. */
    syncPagesPerActivity: landregSyncPagesPerActivity,
    syncParallelDownloads: int('LANDREG_SYNC_PARALLEL_DOWNLOADS', 4),
    /** Demo seed (scripts/seed-demo.ts): the county whose two smallest UATs are synced, or explicit SIRUTA codes. */
    demoSeedWorkspace: int('SEED_DEMO_WORKSPACE', 145),
    demoSeedSirutas: list('SEED_DEMO_SIRUTAS', ''),
  },

  /** Municipal status authority (registry monitoring, spec 3.5; docs/registry.md). */
  statusAuthority: {
    simPort: statusAuthorityPort,
    baseUrl: str('STATUS_AUTHORITY_URL', `http://127.0.0.1:${statusAuthorityPort}`).replace(/\/+$/, ''),
    embedded: !env.STATUS_AUTHORITY_URL,
    /** One page fetch; a timeout is an error, never a status change. */
    timeoutMs: int('STATUS_AUTHORITY_TIMEOUT_MS', 10_000),
    /** Simulator only: seed of its generated pages. */
    simSeed: int('STATUS_AUTHORITY_SIM_SEED', 7),
  },

  /** Multipart uploads (api/http/upload.ts): streamed to disk, CONTRACT.md 5 limit. */
  /** UAT exports (docs/exports.md) and the housekeeping of their files (issue 13). */
  exports: {
    /** export-local builds running at once in one process, every user together (one per user besides). */
    localMaxConcurrent: Math.max(1, int('EXPORT_LOCAL_MAX_CONCURRENT', 2)),
    /** Where builds make their temporary directory. */
    tmpDir: str('EXPORT_TMP_DIR', os.tmpdir()),
    /** Export archives in the exports bucket expire after this many days (a bucket lifecycle rule). */
    retentionDays: Math.max(1, int('EXPORT_RETENTION_DAYS', 7)),
    /** Our temporary directories older than this are removed when a web or workers process starts. */
    staleTempHours: Math.max(1, int('TMP_STALE_AFTER_HOURS', 24)),
  },

  uploads: {
    maxBytes: int('UPLOAD_MAX_BYTES', 500 * 1024 * 1024),
    /** Where upload temp files live until the request ends (removed on every path). */
    tmpDir: str('UPLOAD_TMP_DIR', os.tmpdir()),
    /** Uploads one user may have in flight at once (429 past it: never another user's turn). */
    perUser: Math.max(1, int('UPLOAD_MAX_PER_USER', 2)),
    /**
     * Bytes of upload temp files in flight, every user together (each upload reserves its declared
     * length); past it 507 `insufficient_storage` before anything is written.
     */
    tmpBudgetBytes: Math.max(1, int('UPLOAD_TMP_BUDGET_BYTES', 4 * 1024 ** 3)),
    /** Free space the temp disk keeps whatever the budget says (fs.statfs before each upload). */
    tmpFreeMarginBytes: Math.max(0, int('UPLOAD_TMP_FREE_MARGIN_BYTES', 1024 ** 3)),
  },

  /** Certificate portal (CF extracts, docs/cf.md): its own account, separate from landreg's. */
  cfportal: {
    simPort: cfportalPort,
    baseUrl: str('CFPORTAL_BASE_URL', `http://127.0.0.1:${cfportalPort}`),
    username: str('CFPORTAL_USERNAME', 'geoportal-cf'),
    password: secret('CFPORTAL_PASSWORD', 'parola-cf', { requiredWith: 'CFPORTAL_BASE_URL', issuedElsewhere: true }),
    embedded: !env.CFPORTAL_BASE_URL,
    /** One portal call's deadline; well under the activity timeout, so a stuck submit never overlaps its retry. */
    requestTimeoutMs: int('CFPORTAL_REQUEST_TIMEOUT_MS', 30_000),
    /** Pause between two order-status polls of a submitted order. */
    pollIntervalMs: int('CFPORTAL_POLL_INTERVAL_MS', 2000),
    /**
     * How long a sent submit may stay unlisted by the portal before the batch is marked for an
     * admin's reconciliation (docs/cf.md "Exactly one submit"); it is never submitted again.
     */
    submitListingWaitMs: int('CFPORTAL_SUBMIT_LISTING_WAIT_MS', 10 * 60_000),
    /** Simulator only: data seed, the account's starting credits, polls an order stays processing, idle session lifetime. */
    simSeed: int('CFPORTAL_SIM_SEED', 42),
    simCredits: int('CFPORTAL_SIM_CREDITS', 50),
    simPollsUntilDone: int('CFPORTAL_SIM_POLLS_UNTIL_DONE', 3),
    simSessionTtlSeconds: int('CFPORTAL_SIM_SESSION_TTL_SECONDS', 600),
  },

  /** The central GIS API (spec 1.4, 4.2, docs/central.md); the simulator unless CENTRAL_API_URL is set. */
  central: {
    simPort: centralSimPort,
    baseUrl: str('CENTRAL_API_URL', `http://127.0.0.1:${centralSimPort}`).replace(/\/+$/, ''),
    embedded: !env.CENTRAL_API_URL,
    /** Spec 4.2 and 8: every upstream call has 30 s, then 504 upstream_timeout. Fixed by the spec. */
    timeoutMs: 30_000,
    /** Refresh the caller's access token before forwarding when it expires within this. */
    refreshMarginMs: int('CENTRAL_API_REFRESH_MARGIN_MS', 5000),
  },

  /**
   * Outside calls (domain/outside/call.ts): each service's call rate, shared by every process of
   * the deployment through the store (0: no limit). The portal's is LANDREG_REQUESTS_PER_SECOND.
   */
  outside: {
    requestsPerSecond: {
      landreg: landregRequestsPerSecond,
      cfportal: Math.max(0, int('CFPORTAL_REQUESTS_PER_SECOND', 20)),
      central: Math.max(0, int('CENTRAL_API_REQUESTS_PER_SECOND', 200)),
      pdfService: Math.max(0, int('PDF_SERVICE_REQUESTS_PER_SECOND', 10)),
      statusAuthority: Math.max(0, int('STATUS_AUTHORITY_REQUESTS_PER_SECOND', 10)),
      ai: Math.max(0, int('AI_REQUESTS_PER_SECOND', 20)),
    },
  },

  /**
   * Caps on heavy work (domain/concurrency.ts WorkSlots, docs/operations.md "Fairness"): work in
   * flight for everyone together and for one user; past them 429 `rate_limited`. Per process.
   */
  limits: {
    pdf: { global: Math.max(1, int('PDF_MAX_CONCURRENT', 2)), perUser: Math.max(1, int('PDF_MAX_PER_USER', 1)) },
    dwg: { global: Math.max(1, int('DWG_MAX_CONCURRENT', 2)), perUser: Math.max(1, int('DWG_MAX_PER_USER', 1)) },
    ai: { global: Math.max(1, int('AI_MAX_CONCURRENT', 8)), perUser: Math.max(1, int('AI_MAX_PER_USER', 2)) },
    /** Portal-bound API requests (search, owner search, no-geometry scan, enrich, RGI, debug fields). */
    portal: { global: Math.max(1, int('PORTAL_MAX_CONCURRENT', 16)), perUser: Math.max(1, int('PORTAL_MAX_PER_USER', 4)) },
    /**
     * Portal jobs (syncs and exports, temporal/jobs.ts `start`) one user may have running at once:
     * past them the next start is a 429, so one user's row of starts cannot fill the portal
     * queue ahead of everyone else's. A schedule's and a cron's jobs are not counted.
     */
    portalJobsPerUser: Math.max(1, int('PORTAL_JOBS_PER_USER', 4)),
    /**
     * Reads over a whole UAT a person starts (the UAT dashboard, the boundary check;
     * domain/db/heavyRead.ts), each on one connection of the pool: a few at once in all, so the
     * pool keeps room for everyone's small queries.
     */
    heavyRead: { global: Math.max(1, int('HEAVY_READ_MAX_CONCURRENT', 4)), perUser: Math.max(1, int('HEAVY_READ_MAX_PER_USER', 2)) },
    /** OGC item pages (GET /ogc/collections/<id>/items), each one statement of up to 10,000 features on the read pool. */
    ogcItems: { global: Math.max(1, int('OGC_ITEMS_MAX_CONCURRENT', 6)), perUser: Math.max(1, int('OGC_ITEMS_MAX_PER_USER', 4)) },
    /** Selection exports (POST /api/geoportal/export), each one ogr2ogr. */
    selectionExport: { global: Math.max(1, int('SELECTION_EXPORT_MAX_CONCURRENT', 4)), perUser: Math.max(1, int('SELECTION_EXPORT_MAX_PER_USER', 2)) },
    /**
     * JSON bodies over `inlineBytes` are parsed and checked in worker threads (api/http/jsonBody.ts):
     * that many at once in all (the threads kept), and per user; past them 429.
     */
    jsonBody: {
      global: Math.max(1, int('JSON_BODY_MAX_CONCURRENT', 2)),
      perUser: Math.max(1, int('JSON_BODY_MAX_PER_USER', 1)),
      inlineBytes: Math.max(1024, int('JSON_BODY_INLINE_BYTES', 256 * 1024)),
    },
    /** Vault requests that derive a key (create, update, reveal). */
    vault: { global: Math.max(1, int('VAULT_MAX_CONCURRENT', 16)), perUser: Math.max(1, int('VAULT_MAX_PER_USER', 4)) },
    /** PBKDF2 derivations running at once on libuv's thread pool (the rest wait, bounded). */
    kdfConcurrency: Math.max(1, int('KDF_CONCURRENCY', 1)),
    /** Portal calls one caller may have waiting for the token bucket; past it 429. */
    portalQueuePerUser: Math.max(1, int('PORTAL_QUEUE_PER_USER', 100)),
    /** Portal calls waiting for the token bucket, everyone together. */
    portalQueueTotal: Math.max(1, int('PORTAL_QUEUE_TOTAL', 1000)),
    /** How long a SIRUTA unknown to the catalogue or to the portal is answered 404 from memory. */
    unknownUatCacheMs: int('UNKNOWN_UAT_CACHE_MS', 10 * 60_000),
    /** Memory limit of every child process (Ghostscript and qpdf: address space; ogr2ogr: data), MB. */
    childMemoryMb: Math.max(64, int('CHILD_MEMORY_MB', 1536)),
  },

  /** PDF tools (domain/pdf/): local compression with Ghostscript then qpdf. */
  pdf: {
    gs: str('GS_BIN', 'gs'),
    qpdf: str('QPDF_BIN', 'qpdf'),
    /** Ceiling of one Ghostscript or qpdf run; a 500 MB scan takes a few minutes. */
    toolTimeoutMs: int('PDF_TOOL_TIMEOUT_MS', 10 * 60_000),
    /** A run's own timeout: this base plus `toolMsPerMb` per MB of its input, up to the ceiling. */
    toolBaseTimeoutMs: int('PDF_TOOL_BASE_TIMEOUT_MS', 30_000),
    toolMsPerMb: int('PDF_TOOL_MS_PER_MB', 2_000),
  },

  /**
   * DWG → DXF conversion sidecar (sidecars/dwg/, docs/architecture.md "DWG sidecar"): its own
   * process on the loopback interface, started by the local stack unless DWG_CONVERTER_URL is set.
   */
  dwg: {
    port: dwgConverterPort,
    /** Loopback by default; a container deployment binds its internal network (never published). */
    host: str('DWG_CONVERTER_HOST', '127.0.0.1'),
    url: str('DWG_CONVERTER_URL', `http://127.0.0.1:${dwgConverterPort}`).replace(/\/+$/, ''),
    embedded: !env.DWG_CONVERTER_URL,
    /** A conversion running longer than this is killed (its child process) and answered 504. */
    timeoutMs: int('DWG_CONVERT_TIMEOUT_MS', 120_000),
    /** Conversions run at once by the sidecar (each a child process); the rest wait their turn. */
    concurrency: Math.max(1, int('DWG_CONVERTER_CONCURRENCY', 2)),
    /** Conversions waiting for a slot in the sidecar; past them the sidecar answers 429. */
    queue: Math.max(0, int('DWG_CONVERTER_QUEUE', 8)),
  },
  /**
   * The cloud PDF service (EXTERNAL-SERVICES.md "PDF service"): unlock and the cloud compression
   * levels; the simulator (simulators/pdfService/) unless PDF_SERVICE_URL is set.
   */
  pdfService: {
    simPort: pdfServicePort,
    baseUrl: str('PDF_SERVICE_URL', `http://127.0.0.1:${pdfServicePort}`).replace(/\/+$/, ''),
    embedded: !env.PDF_SERVICE_URL,
    /** Sent as `Authorization: Bearer`; the simulator refuses other keys (401). */
    apiKey: secret('PDF_SERVICE_API_KEY', 'dev-pdf-service-key', { requiredWith: 'PDF_SERVICE_URL', issuedElsewhere: true }),
    /** Ceiling of one call (upload, work, download); a 500 MB scan takes minutes. */
    timeoutMs: int('PDF_SERVICE_TIMEOUT_MS', 10 * 60_000),
    /** Calls are pure transforms of the upload, so a 5xx or a dropped connection is tried again this many times. */
    retryAttempts: int('PDF_SERVICE_RETRY_ATTEMPTS', 2),
    retryBaseDelayMs: int('PDF_SERVICE_RETRY_BASE_DELAY_MS', 300),
  },
  /** AI chat (docs/api.md "AI chat"): three providers, the simulator's defaults outside production. */
  ai: aiSettingsFrom(env, aiSimPort),

  tokens: {
    cronSecret: secret('CRON_SECRET', 'dev-cron-secret'),
    addressBookApiKey: secret('ADDRESSBOOK_API_KEY', 'dev-addressbook-key'),
    /**
     * The bearer token of a Prometheus server scraping `/metrics` from another host (loopback
     * callers need none). Unset: only admin sessions and loopback callers are served.
     */
    metricsToken: secret('METRICS_TOKEN', '', { requiredWith: 'METRICS_TOKEN' }),
  },

  flags: {
    useCentralApi: flag('USE_CENTRAL_API'),
    centralApiPilotUsers: list('CENTRAL_API_PILOT_USERS', 'ioana@birou.ro,mihai@birou.ro,radu@birou.ro'),
    basicPanelUsers: list('BASIC_PANEL_USERS', 'elena@birou.ro'),
    panelBasicGlobal: flag('PANEL_BASIC_GLOBAL'),
    portalOnlyUsers: list('PORTAL_ONLY_USERS', ''),
    adminEmails: list('ADMIN_EMAILS', ''),
  },

  /** Vector tiles and the PMTiles overview (docs/tiles.md). */
  tiles: {
    /** Set → /tiles proxies Martin-style `<url>/<source>/<z>/<x>/<y>` instead of rendering. */
    serverUrl: str('TILE_SERVER_URL', '').replace(/\/+$/, ''),
    /** In-memory LRU of rendered tiles, bounded by count and by bytes. */
    cacheMaxEntries: int('TILE_CACHE_MAX_ENTRIES', 20_000),
    cacheMaxBytes: int('TILE_CACHE_MAX_BYTES', 128 * 1024 * 1024),
    /** Browser cache lifetime of a tile; after it the ETag makes revalidation a cheap 304. */
    maxAgeSeconds: int('TILE_MAX_AGE_SECONDS', 60),
    /**
     * The tile gateway (native/tilegate, docs/tiles.md "The tile gateway"): the launcher puts it on
     * PORT in front of the web process, which then listens on `internalPort`. Off in proxy mode.
     */
    gateway: flag('TILE_GATEWAY', true),
    internalPort: port('WEB_INTERNAL_PORT', 3010),
    gatewayMetricsPort: port('TILEGATE_METRICS_PORT', 3011),
    /** Set by the launcher for the web process: the gateway's metrics, appended to GET /metrics. */
    gatewayMetricsUrl: str('TILEGATE_METRICS_URL', '').replace(/\/+$/, ''),
    /** How long a process trusts its copy of tile_versions before reading it again. */
    versionTtlMs: int('TILE_VERSION_TTL_MS', 1000),
    /** Connections of the tile pool (the store's tilePool, db/store.ts), beside the shared pool's. */
    dbPoolMax: int('TILE_DB_POOL_MAX', 8),
    /**
     * Outbound rebuild webhook of an outside tile server (spec 3.6). Unset, the syncs start the
     * builder this stack ships as a child workflow (embeddedBuilder) and nothing calls a webhook;
     * the default names our own route, which stays for outside callers.
     */
    get rebuildWebhookUrl(): string {
      return str('TILE_REBUILD_WEBHOOK_URL', `http://127.0.0.1:${appPort}/tiles/rebuild-webhook`);
    },
    rebuildWebhookToken: secret('TILE_REBUILD_WEBHOOK_TOKEN', 'dev-tile-rebuild-token'),
    /** The webhook targets the builder this stack ships (no TILE_REBUILD_WEBHOOK_URL given). */
    embeddedBuilder: !env.TILE_REBUILD_WEBHOOK_URL,
    /** S3 key of the overview archive in config.s3.buckets.tiles. */
    archiveKey: str('TILE_ARCHIVE_KEY', 'overview.pmtiles'),
    /** Python virtualenv holding the Protomaps `pmtiles` converter (made by the bootstrap). */
    pmtilesVenv: str(
      'PMTILES_VENV',
      path.join(env.HOME ?? '/root', '.cache', 'cadastral-geoportal', 'tools', 'pmtiles-venv-3.8.1'),
    ),
    ogr2ogr: str('OGR2OGR', 'ogr2ogr'),
  },

  encryptionSecret: secret('ENCRYPTION_SECRET', 'dev-encryption-secret-change-me'),

  /** Office utilities (docs/office.md): the tag manager's two-way sync target. */
  office: {
    /** CONTRACT.md 6: bytes of storage values (their JSON text) one company keeps at most. */
    storageQuotaBytes: Math.max(0, int('STORAGE_QUOTA_BYTES', 1024 ** 3)),
    /** The time tracker's tag file (CONTRACT.md 3); default inside the profile's data directory. */
    get tagFilePath(): string {
      return path.resolve(projectRoot, str('TAG_FILE_PATH', path.join(str('DATA_DIR', `.data/${profile}`), 'manictime', 'tags.txt')));
    },
  },

  build: {
    commit: str('GIT_COMMIT', 'unknown'),
    buildTime: str('BUILD_TIME', 'unknown'),
  },
} as const;

export type Config = typeof config;

/** True when a value is a development default or shaped like one (`dev-*`, `*change-me*`). */
export function isDevelopmentSecret(value: string, devDefault: string): boolean {
  return value === '' || value === devDefault || /^dev-/i.test(value) || /change-?me/i.test(value);
}

/**
 * Whether an environment is a production one for the secret check: every NODE_ENV but
 * `development` and `test`, unset included (config.nodeEnv's default). A `staging` or a mistyped
 * `prod` deployment faces real users too, so only the two local profiles skip the check: the
 * local stack, the tests and the benches name theirs (`npm start` development, `npm test` test).
 */
export function isProductionEnv(source: Readonly<Record<string, string | undefined>> = env): boolean {
  const v = source.NODE_ENV?.trim();
  return v !== 'development' && v !== 'test';
}

/**
 * Variables a production start needs without any default: the identity provider (the default is
 * the development simulator, whose users and passwords are published).
 */
const REQUIRED_IN_PRODUCTION = ['OIDC_ISSUER'] as const;

/**
 * What a production start refuses, by variable name: a secret missing, still a development
 * default, or (our own secrets) shorter than MIN_SECRET_LENGTH; a required variable unset. With
 * DATABASE_URL given, its password stands for PGPASSWORD.
 */
export function productionSecretProblems(source: NodeJS.ProcessEnv = env): string[] {
  const problems: string[] = [];
  for (const s of SECRETS) {
    if (s.requiredWith && !source[s.requiredWith]) continue;
    let value = source[s.name] ?? '';
    if (s.name === 'PGPASSWORD' && source.DATABASE_URL) {
      try {
        value = decodeURIComponent(new URL(source.DATABASE_URL).password);
      } catch {
        value = '';
      }
    }
    if (isDevelopmentSecret(value, s.devDefault) || (!s.issuedElsewhere && value.length < MIN_SECRET_LENGTH)) problems.push(s.name);
  }
  for (const name of REQUIRED_IN_PRODUCTION) if (!source[name]?.trim()) problems.push(name);
  return problems;
}

/**
 * Spec 5.8: in production (isProductionEnv: any NODE_ENV but development and test) a process refuses to
 * start while any secret is missing, a development default or too short, or the identity
 * provider is not named. Called first by every entry point (web, workers, migrations, sidecar).
 */
export function assertProductionSecrets(source: NodeJS.ProcessEnv = env): void {
  if (!isProductionEnv(source)) return;
  const problems = productionSecretProblems(source);
  if (problems.length > 0) {
    const how = source.NODE_ENV?.trim() ? `NODE_ENV=${source.NODE_ENV.trim()}` : 'NODE_ENV unset (production)';
    throw new Error(
      `Refusing to start with ${how}: ${problems.join(', ')} ${problems.length === 1 ? 'is' : 'are'} missing, still a development default ` +
        `or (own secrets) shorter than ${MIN_SECRET_LENGTH} characters. ` +
        'Set each to a long random value (see docs/operations.md, "Production secrets"); for local work set NODE_ENV=development.',
    );
  }
}

/** Entry points call this first: the refusal is one clear line on stderr and exit code 1. */
export function refuseUnsafeProductionStart(): void {
  try {
    assertProductionSecrets();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
