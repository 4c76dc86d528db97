export * from './driver.js'
export * from './image/build.js'
export * from './image/recipe.js'
export * from './limits.js'
export { detectCgroups } from './local/cgroups.js'
export {
  LocalDriver,
  type LocalDriverOptions,
  MAX_CODE_BYTES,
  MAX_READ_BYTES,
} from './local/local-driver.js'
export { type PoolOptions, SandboxPool } from './pool.js'
export { sandboxSeccompFilter } from './seccomp/filter.js'
