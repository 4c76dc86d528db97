export {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  formatBytes,
  type MemoryLimits,
} from './limits.js'
export { LOCK_NAME, type LockOptions, withMemoryLock } from './lock.js'
export { type MemoryOptions, MemoryTool } from './memory.js'
export { DISPLAY_ROOT, normalizeMemoryPath } from './paths.js'
