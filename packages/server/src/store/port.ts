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

/**
 * The metadata store port: keys, organisations and workspaces today; files, containers and usage
 * later. Adapters: SQLite (embedded default) and PostgreSQL (several servers), same schema and
 * migrations.
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
  /** Resolves when the store answers a query; for health checks. */
  ping(): Promise<void>
  close(): Promise<void>
}
