export { DockerDriver, type DockerDriverOptions } from './docker/docker-driver.js'
export * from './driver.js'
export { hostAddresses, isForbiddenAddress } from './egress/addresses.js'
export {
  decideEgress,
  type EgressOptions,
  type EgressPolicy,
  type PackageMirror,
  parseHostRule,
  resolveEgress,
} from './egress/policy.js'
export {
  EGRESS_DEFAULTS,
  type EgressDecision,
  EgressProxy,
  type EgressProxyOptions,
} from './egress/proxy.js'
export * from './image/build.js'
export * from './image/recipe.js'
export { CHUNK_BYTES, MAX_CODE_BYTES, MAX_INPUT_BYTES, MAX_READ_BYTES } from './kernel-replies.js'
export * from './limits.js'
export { detectCgroups, removeCgroupParent } from './local/cgroups.js'
export { LocalDriver, type LocalDriverOptions } from './local/local-driver.js'
export { type PoolOptions, SandboxPool } from './pool.js'
export { sandboxSeccompFilter } from './seccomp/filter.js'
