export { looksLikeSortableId, newSortableId, type SortableIdPrefix } from './ids.js'
export { CREATE_MIGRATIONS_TABLE, MIGRATIONS, type Migration } from './migrations.js'
export { assertName, checkName, DEFAULT_WORKSPACE, InvalidNameError } from './names.js'
export { type OpenStoreOptions, openStore } from './open.js'
export {
  DEFAULT_CODE_EXECUTION,
  DEFAULT_CONTAINER_LIMIT,
  DEFAULT_TIER,
} from './org-settings-table.js'
export {
  checkContainerLimit,
  checkEgressHost,
  checkTier,
  MAX_CONTAINER_LIMIT,
  MAX_EGRESS_HOSTS,
} from './org-settings-values.js'
export type {
  ContainerRecord,
  ContainerStatus,
  FilePage,
  FilePurpose,
  FileRecord,
  FileSource,
  KeyRecord,
  NewContainer,
  NewFile,
  OrgSettings,
  OrgSettingsPatch,
  Principal,
  Scope,
  Store,
  UsageEntry,
  UsageLine,
  UsageTotal,
} from './port.js'
export { PostgresStore } from './postgres.js'
export {
  generateSecret,
  hashSecret,
  looksLikeSecret,
  SECRET_LENGTH,
  SECRET_PREFIX,
} from './secrets.js'
export { UnknownScopeError } from './sql-runner.js'
export { SQLITE_FILE_NAME, SqliteStore } from './sqlite.js'
