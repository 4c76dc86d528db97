export {
  type AppDeps,
  createApp,
  type RunningServer,
  type StartOptions,
  startServer,
} from './app.js'
export type { ServerConfig, UpstreamConfig } from './config.js'
export {
  ApiError,
  type ErrorEnvelope,
  type ErrorType,
  envelope,
  REQUEST_ID_HEADER,
} from './errors.js'
export {
  ConfigError,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_HOME,
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  loadConfig,
} from './load-config.js'
export type { LogSink, RequestLogRecord } from './request-log.js'
export {
  checkName,
  DEFAULT_WORKSPACE,
  InvalidNameError,
  type KeyRecord,
  type OpenStoreOptions,
  openStore,
  type Principal,
  type Store,
} from './store/index.js'
export { createUpstream, type Upstream, type UpstreamFormat } from './upstream/index.js'
