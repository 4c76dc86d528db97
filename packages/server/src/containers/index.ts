export { ContainerService, type ContainerServiceOptions } from './container-service.js'
export {
  containerNotFound,
  fileNotFound,
  overloaded,
  RetryableApiError,
  sandboxUnavailable,
} from './errors.js'
export {
  type CollectedOutputs,
  copyInputs,
  OUTPUT_FILES_PER_RUN_MAX,
  OutputFiles,
} from './files-in-out.js'
export {
  CONTAINER_IDLE_MS,
  CONTAINER_MAX_LIFETIME_MS,
  expiresAt,
  type Lifetime,
  REAP_INTERVAL_MS,
} from './lifetime.js'
export { ContainerReaper } from './reaper.js'
