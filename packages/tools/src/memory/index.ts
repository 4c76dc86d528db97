export { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_FILES, DEFAULT_MAX_TOTAL_BYTES } from './limits.js'
export { type MemoryOptions, MemoryTool } from './memory.js'
