/** Who a request is from, once its API key checks out. */
export interface Principal {
  keyId: string
  org: string
  workspace: string
}

/** An API key as stored: never the secret itself, only its hash and a short prefix to show. */
export interface KeyRecord {
  /** `key_` + random; what `syntic keys revoke` and listings use. */
  id: string
  org: string
  workspace: string
  /** The first characters of the secret (`sk_live_AbC1`), to recognise a key in a listing. */
  prefix: string
  createdAt: string
  revokedAt: string | null
}

/** An organisation and one of its workspaces, by name: what every scoped query is limited to. */
export interface Scope {
  org: string
  workspace: string
}

/** `code_input`: uploaded for code execution; `code_output`: written to `/mnt/output/`. */
export type FilePurpose = 'code_input' | 'code_output'
export type FileSource = 'upload' | 'code_execution'

export interface FileRecord {
  /** `file_` + a sortable random id. */
  id: string
  org: string
  workspace: string
  /** As given by the uploader or the code, already checked (no path, no control characters). */
  filename: string
  bytes: number
  mimeType: string
  purpose: FilePurpose
  source: FileSource
  createdAt: string
  /** Where the content is in the blob store; never shown to callers. */
  blobKey: string
  /** The container that wrote it, for `code_execution` files. */
  containerId: string | null
}

export type NewFile = Omit<FileRecord, 'id' | 'createdAt'> & { createdAt?: string }

export interface FilePage {
  /** Newest first. */
  files: FileRecord[]
  hasMore: boolean
}

export type ContainerStatus = 'live' | 'removed'

export interface ContainerRecord {
  /** `cntr_` + a sortable random id; what callers see. */
  id: string
  org: string
  workspace: string
  /** The sandbox driver that runs it (`local`, `docker`). */
  driver: string
  /** The driver's own id for the sandbox; internal, never exposed. */
  sandboxId: string
  status: ContainerStatus
  createdAt: string
  lastUsedAt: string
  /** When it goes if unused: the earlier of idle expiry and the absolute lifetime. */
  expiresAt: string
  removedAt: string | null
}

export interface NewContainer extends Scope {
  driver: string
  sandboxId: string
  createdAt: string
  expiresAt: string
  /** The organisation's live-container limit: at it, nothing is inserted. */
  maxLive: number
}

/** Billing lines; one today. */
export type UsageLine = 'code_execution'

export interface UsageEntry extends Scope {
  /** The API request that used the resource; one entry per request and line. */
  requestId: string
  line: UsageLine
  /** Billable seconds for the request, after its minimum. */
  seconds: number
  /** Measured milliseconds, before rounding and the minimum. */
  rawMs: number
  createdAt: string
}

export interface UsageTotal {
  workspace: string
  seconds: number
  rawMs: number
  requests: number
}

export interface OrgSettings {
  org: string
  /** Whether `syntic_code_execution` may be used; off answers 403 `tool_disabled`. */
  codeExecution: boolean
  /**
   * Live containers allowed at once, set for this organisation alone; null: its tier's limit
   * (`effectiveContainerLimit` in orgs/container-limit.ts).
   */
  containerLimitOverride: number | null
  /** Hosts code may reach; empty means no network. */
  egressAllowlist: string[]
  /** The organisation's plan; the server's config says what each tier allows. */
  tier: string
  /** Null while the organisation runs on the defaults. */
  updatedAt: string | null
}

/** The settings to change; `containerLimitOverride: null` clears the override. */
export type OrgSettingsPatch = Partial<
  Pick<OrgSettings, 'codeExecution' | 'containerLimitOverride' | 'egressAllowlist' | 'tier'>
>

/**
 * The metadata store port: keys, organisations and workspaces; files, containers, the usage
 * ledger and organisation settings. Adapters: SQLite (embedded default) and PostgreSQL (several
 * servers), same schema and migrations. Scoped reads take a `Scope`: another workspace's row is
 * indistinguishable from a missing one. Ids that do not have their exact shape match nothing.
 */
export interface Store {
  /** Applies pending migrations; safe to call from several servers at once. */
  migrate(): Promise<void>
  /** Creates the org and workspace if missing and a new key in them; returns the secret once. */
  createKey(input: { org: string; workspace: string }): Promise<{ key: string; record: KeyRecord }>
  /** Revokes by key id or by the secret; null when no such key. Takes effect at once. */
  revokeKey(idOrSecret: string): Promise<KeyRecord | null>
  listKeys(filter?: { org?: string }): Promise<KeyRecord[]>
  /** The principal for a secret, or null when unknown or revoked. On every request: keep it fast. */
  authenticate(secret: string): Promise<Principal | null>
  /** Stores a file's metadata (its content is already in the blob store). */
  createFile(file: NewFile): Promise<FileRecord>
  getFile(scope: Scope, id: string): Promise<FileRecord | null>
  /** The workspace's files newest first, `limit` of them, after the file `after` when given. */
  listFiles(scope: Scope, page: { limit: number; after?: string }): Promise<FilePage>
  /** Removes the row and returns it (its blob is the caller's to delete); null when none. */
  deleteFile(scope: Scope, id: string): Promise<FileRecord | null>

  /**
   * Stores a live container unless the organisation already has `maxLive` (then null), atomically
   * across concurrent requests and servers.
   */
  createContainer(container: NewContainer): Promise<ContainerRecord | null>
  /** A live container of this workspace not expired at `now`; null otherwise. */
  getContainer(scope: Scope, id: string, now: string): Promise<ContainerRecord | null>
  /** Marks a live container used; null when it is not live. */
  touchContainer(
    id: string,
    times: { lastUsedAt: string; expiresAt: string },
  ): Promise<ContainerRecord | null>
  /** Live, unexpired containers of the organisation at `now`, for its limit. */
  countLiveContainers(org: string, now: string): Promise<number>
  /** Every container still marked live, expired or not, oldest first: the reaper's work list. */
  listLiveContainers(): Promise<ContainerRecord[]>
  /** Marks a container removed; false when it already was (or never existed). */
  markContainerRemoved(id: string, removedAt: string): Promise<boolean>

  /**
   * Records a usage entry once per request and line. A second call with the same request id and
   * line changes nothing and returns the first entry with `recorded: false`.
   */
  recordUsage(entry: UsageEntry): Promise<{ recorded: boolean; entry: UsageEntry }>
  /** Totals per workspace of one line for entries created in `[from, to)`. */
  usageTotals(
    org: string,
    line: UsageLine,
    range: { from: string; to: string },
  ): Promise<UsageTotal[]>

  /** The organisation's settings (defaults when never set); null when there is no such org. */
  getOrgSettings(org: string): Promise<OrgSettings | null>
  /** Changes the given settings, creating the organisation when missing. */
  updateOrgSettings(org: string, patch: OrgSettingsPatch): Promise<OrgSettings>

  /** Resolves when the store answers a query; for health checks. */
  ping(): Promise<void>
  close(): Promise<void>
}
