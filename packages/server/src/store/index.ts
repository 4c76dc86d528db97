export { CREATE_MIGRATIONS_TABLE, MIGRATIONS, type Migration } from './migrations.js'
export { assertName, checkName, DEFAULT_WORKSPACE, InvalidNameError } from './names.js'
export { type OpenStoreOptions, openStore } from './open.js'
export type { KeyRecord, Principal, Store } from './port.js'
export { PostgresStore } from './postgres.js'
export {
  generateSecret,
  hashSecret,
  looksLikeSecret,
  SECRET_LENGTH,
  SECRET_PREFIX,
} from './secrets.js'
export { SQLITE_FILE_NAME, SqliteStore } from './sqlite.js'
