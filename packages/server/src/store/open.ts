import type { Store } from './port.js'
import { PostgresStore } from './postgres.js'
import { SqliteStore } from './sqlite.js'

export interface OpenStoreOptions {
  /** The server's home folder; the SQLite database is `<home>/syntic.db`. */
  home: string
  /** A `postgres://` or `postgresql://` URL; when set (non-empty), PostgreSQL is used instead. */
  databaseUrl?: string
}

/** Checks the URL's scheme; the message never repeats the URL, which may hold a password. */
function checkDatabaseUrl(url: string): void {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase()
  if (scheme === 'postgres' || scheme === 'postgresql') return
  const got = scheme === undefined ? 'no scheme' : `${scheme.slice(0, 20)}://`
  throw new Error(
    `the database URL must start with postgres:// or postgresql:// (got ${got}); leave it unset to use SQLite in the home folder`,
  )
}

/** Opens the metadata store the options name and brings its schema up to date. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const url = options.databaseUrl
  let store: Store
  if (url !== undefined && url !== '') {
    checkDatabaseUrl(url)
    store = new PostgresStore(url)
  } else {
    store = new SqliteStore(options.home)
  }
  try {
    await store.migrate()
  } catch (error) {
    await store.close()
    throw error
  }
  return store
}
