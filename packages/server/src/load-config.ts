import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type {
  EmbeddingsConfig,
  ModelConfig,
  SandboxConfig,
  ServerConfig,
  TierConfig,
  UpstreamConfig,
} from './config.js'
import { checkTier, MAX_CONTAINER_LIMIT } from './store/org-settings-values.js'
import type { UpstreamFormat } from './upstream/port.js'

export type { ServerConfig } from './config.js'
// `syntic orgs show` applies the tiers of the config it reads, like the server does.
export { effectiveContainerLimit } from './orgs/container-limit.js'

/** A setting that cannot be used; the message names the setting and what it takes. */
export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message)
  }
}

export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_PORT = 8080
export const DEFAULT_HOME = './.syntic'
// Models are slow: a long answer can take minutes before the first token of a big prompt.
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 600_000
export const DEFAULT_UPSTREAM_CONNECT_TIMEOUT_MS = 10_000
export const DEFAULT_BODY_LIMIT_BYTES = 32 * 1024 * 1024
// Node's timers overflow above 2^31 - 1 ms (about 24.8 days).
const MAX_TIMEOUT_MS = 2_147_483_647
// Uploads stream to disk; past 1 TiB a single file is surely a mistake.
const MAX_FILES_MAX_BYTES = 1024 ** 4
// Above this a single request body would hold more than any model's context many times over.
const MAX_BODY_LIMIT_BYTES = 1024 * 1024 * 1024
const UPSTREAM_FORMATS: readonly UpstreamFormat[] = ['openai', 'anthropic']
const FILE_KEYS = [
  'host',
  'port',
  'home',
  'databaseUrl',
  'upstream',
  'models',
  'bodyLimitBytes',
  'requestLog',
  'filesMaxBytes',
  'embeddings',
  'tiers',
] as const
const UPSTREAM_KEYS = ['url', 'apiKey', 'format', 'timeoutMs', 'connectTimeoutMs'] as const
const EMBEDDINGS_KEYS = ['url', 'model', 'apiKey'] as const
const TIER_KEYS = ['containerLimit'] as const
const UPSTREAM_KEY_HINT =
  "put the upstream's key in SYNTIC_UPSTREAM_API_KEY (or upstream.apiKey in the config file)"
const EMBEDDINGS_KEY_HINT =
  "put the embeddings server's key in SYNTIC_EMBEDDINGS_API_KEY (or embeddings.apiKey in the config file)"

type Env = Record<string, string | undefined>

/** One setting as read from the file or the environment, with the name to blame in errors. */
interface Source<T> {
  value: T
  setting: string
}

/** What the config file may hold, each value already checked, paths still as written. */
interface FileSettings {
  host?: Source<string>
  port?: Source<number>
  home?: Source<string>
  databaseUrl?: Source<string>
  upstreamUrl?: Source<string>
  upstreamApiKey?: Source<string>
  upstreamFormat?: Source<UpstreamFormat>
  upstreamTimeoutMs?: Source<number>
  upstreamConnectTimeoutMs?: Source<number>
  models?: Record<string, string | ModelConfig>
  bodyLimitBytes?: Source<number>
  requestLog?: Source<boolean>
  filesMaxBytes?: Source<number>
  embeddingsUrl?: Source<string>
  embeddingsModel?: Source<string>
  embeddingsApiKey?: Source<string>
  tiers?: Record<string, TierConfig>
}

/**
 * The server's settings: an optional JSON file (`SYNTIC_CONFIG`, else `<home>/config.json` when
 * it exists) with environment variables taking precedence. Relative paths in the file are taken
 * from the file's folder, those in the environment from `cwd`. Throws ConfigError naming the
 * first bad setting.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): ServerConfig {
  const envHome = nonEmpty(env, 'SYNTIC_HOME')
  const explicitFile = nonEmpty(env, 'SYNTIC_CONFIG')
  const defaultHome = resolve(cwd, envHome ?? DEFAULT_HOME)
  let file: FileSettings = {}
  let fileDir = cwd
  if (explicitFile !== undefined) {
    const path = resolve(cwd, explicitFile)
    if (!existsSync(path)) {
      throw new ConfigError('SYNTIC_CONFIG', `SYNTIC_CONFIG names ${path}, which does not exist`)
    }
    file = readConfigFile(path)
    fileDir = dirname(path)
  } else {
    const path = join(defaultHome, 'config.json')
    if (existsSync(path)) {
      file = readConfigFile(path)
      fileDir = dirname(path)
    }
  }

  const host = envString(env, 'HOST') ?? file.host?.value ?? DEFAULT_HOST
  const port = envInteger(env, 'PORT', 0, 65_535) ?? file.port?.value ?? DEFAULT_PORT
  const home =
    envHome !== undefined
      ? defaultHome
      : file.home
        ? resolve(fileDir, file.home.value)
        : defaultHome
  const databaseUrl = envDatabaseUrl(env) ?? file.databaseUrl?.value
  const bodyLimitBytes =
    envInteger(env, 'SYNTIC_BODY_LIMIT_BYTES', 1, MAX_BODY_LIMIT_BYTES) ??
    file.bodyLimitBytes?.value ??
    DEFAULT_BODY_LIMIT_BYTES
  const requestLog = envBoolean(env, 'SYNTIC_REQUEST_LOG') ?? file.requestLog?.value ?? true
  const upstream = upstreamConfig(env, file)

  const config: ServerConfig = {
    host,
    port,
    home,
    models: file.models ?? {},
    bodyLimitBytes,
    requestLog,
  }
  if (databaseUrl !== undefined) config.databaseUrl = databaseUrl
  if (upstream !== undefined) config.upstream = upstream
  const embeddings = embeddingsConfig(env, file)
  if (embeddings !== undefined) config.embeddings = embeddings
  const filesMaxBytes =
    envInteger(env, 'SYNTIC_FILES_MAX_BYTES', 1, MAX_FILES_MAX_BYTES) ?? file.filesMaxBytes?.value
  if (filesMaxBytes !== undefined) config.filesMaxBytes = filesMaxBytes
  config.sandbox = sandboxConfig(env)
  if (file.tiers !== undefined) config.tiers = file.tiers
  return config
}

/** Live sandboxes one server runs by default: 2 vCPU and 4 GB each are limits, not reservations. */
export const DEFAULT_SANDBOX_MAX = 64
export const DEFAULT_SANDBOX_POOL = 1

/** Code execution's sandboxes, from the environment only. */
function sandboxConfig(env: Env): SandboxConfig {
  const driver = nonEmpty(env, 'SYNTIC_SANDBOX_DRIVER') ?? 'local'
  if (driver !== 'local' && driver !== 'docker') {
    throw new ConfigError(
      'SYNTIC_SANDBOX_DRIVER',
      `SYNTIC_SANDBOX_DRIVER must be local or docker; got ${quote(driver)}`,
    )
  }
  const config: SandboxConfig = {
    driver,
    maxSandboxes: envInteger(env, 'SYNTIC_SANDBOX_MAX', 1, 100_000) ?? DEFAULT_SANDBOX_MAX,
    poolSize: envInteger(env, 'SYNTIC_SANDBOX_POOL', 0, 1000) ?? DEFAULT_SANDBOX_POOL,
    idleMs: 30 * 60 * 1000,
    maxLifetimeMs: 24 * 60 * 60 * 1000,
    reapIntervalMs: 60 * 1000,
  }
  const dockerHost = nonEmpty(env, 'SYNTIC_DOCKER_HOST')
  if (dockerHost !== undefined) config.dockerHost = dockerHost
  const fleet = nonEmpty(env, 'SYNTIC_SANDBOX_FLEET')
  if (fleet !== undefined) config.fleet = fleet
  const mirror = nonEmpty(env, 'SYNTIC_PACKAGE_MIRROR_URL')
  if (mirror !== undefined) {
    config.packageMirrorUrl = checkHttpUrl(
      'SYNTIC_PACKAGE_MIRROR_URL',
      mirror,
      'give the index URL without credentials (pip sends none through the sandbox proxy)',
    )
  }
  return config
}

/** The embeddings server for semantic tool search: each setting from the environment, else the file. */
function embeddingsConfig(env: Env, file: FileSettings): EmbeddingsConfig | undefined {
  const envUrl = nonEmpty(env, 'SYNTIC_EMBEDDINGS_URL')
  const url: Source<string> | undefined =
    envUrl === undefined
      ? file.embeddingsUrl
      : {
          value: checkHttpUrl('SYNTIC_EMBEDDINGS_URL', envUrl, EMBEDDINGS_KEY_HINT),
          setting: 'SYNTIC_EMBEDDINGS_URL',
        }
  const model = envSource(env, 'SYNTIC_EMBEDDINGS_MODEL') ?? file.embeddingsModel
  const apiKey = envSource(env, 'SYNTIC_EMBEDDINGS_API_KEY') ?? file.embeddingsApiKey
  if (url === undefined) {
    const orphan = model ?? apiKey
    if (orphan !== undefined) {
      throw new ConfigError(
        orphan.setting,
        `${orphan.setting} is set but SYNTIC_EMBEDDINGS_URL (or "embeddings.url" in the config file) is not: set it to an OpenAI-compatible base URL like http://127.0.0.1:8001/v1`,
      )
    }
    return undefined
  }
  if (model === undefined) {
    throw new ConfigError(
      'SYNTIC_EMBEDDINGS_MODEL',
      `${url.setting} is set but SYNTIC_EMBEDDINGS_MODEL (or "embeddings.model" in the config file) is not: name the embedding model to ask for`,
    )
  }
  const config: EmbeddingsConfig = { url: url.value, model: model.value }
  if (apiKey !== undefined) config.apiKey = apiKey.value
  return config
}

function envSource(env: Env, name: string): Source<string> | undefined {
  const value = nonEmpty(env, name)
  return value === undefined ? undefined : { value, setting: name }
}

function upstreamConfig(env: Env, file: FileSettings): UpstreamConfig | undefined {
  const url: Source<string> | undefined = envUrl(env) ?? file.upstreamUrl
  const apiKey = envString(env, 'SYNTIC_UPSTREAM_API_KEY') ?? file.upstreamApiKey?.value
  const format = envFormat(env) ?? file.upstreamFormat?.value ?? 'openai'
  const timeoutMs =
    envInteger(env, 'SYNTIC_UPSTREAM_TIMEOUT_MS', 1, MAX_TIMEOUT_MS) ??
    file.upstreamTimeoutMs?.value ??
    DEFAULT_UPSTREAM_TIMEOUT_MS
  const connectTimeoutMs =
    envInteger(env, 'SYNTIC_UPSTREAM_CONNECT_TIMEOUT_MS', 1, MAX_TIMEOUT_MS) ??
    file.upstreamConnectTimeoutMs?.value ??
    DEFAULT_UPSTREAM_CONNECT_TIMEOUT_MS
  if (url === undefined) {
    const orphan = [
      ['SYNTIC_UPSTREAM_API_KEY', env.SYNTIC_UPSTREAM_API_KEY],
      ['SYNTIC_UPSTREAM_FORMAT', env.SYNTIC_UPSTREAM_FORMAT],
      ['SYNTIC_UPSTREAM_TIMEOUT_MS', env.SYNTIC_UPSTREAM_TIMEOUT_MS],
      ['SYNTIC_UPSTREAM_CONNECT_TIMEOUT_MS', env.SYNTIC_UPSTREAM_CONNECT_TIMEOUT_MS],
    ].find(([, value]) => value !== undefined && value.trim() !== '')?.[0]
    const fileOrphan = [
      file.upstreamApiKey,
      file.upstreamFormat,
      file.upstreamTimeoutMs,
      file.upstreamConnectTimeoutMs,
    ].find((s) => s !== undefined)?.setting
    const setting = orphan ?? fileOrphan
    if (setting !== undefined) {
      throw new ConfigError(
        setting,
        `${setting} is set but no upstream URL is: set SYNTIC_UPSTREAM_URL (or "upstream.url" in the config file)`,
      )
    }
    return undefined
  }
  const upstream: UpstreamConfig = { url: url.value, format, timeoutMs, connectTimeoutMs }
  if (apiKey !== undefined) upstream.apiKey = apiKey
  return upstream
}

// --- the environment ---

function nonEmpty(env: Env, name: string): string | undefined {
  const raw = env[name]
  if (raw === undefined) return undefined
  const value = raw.trim()
  return value === '' ? undefined : value
}

function envString(env: Env, name: string): string | undefined {
  return nonEmpty(env, name)
}

function envInteger(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = nonEmpty(env, name)
  if (raw === undefined) return undefined
  return checkInteger(name, /^\d+$/.test(raw) ? Number(raw) : raw, min, max)
}

function envBoolean(env: Env, name: string): boolean | undefined {
  const raw = nonEmpty(env, name)
  if (raw === undefined) return undefined
  const value = raw.toLowerCase()
  if (['1', 'true', 'on', 'yes'].includes(value)) return true
  if (['0', 'false', 'off', 'no'].includes(value)) return false
  throw new ConfigError(name, `${name} must be on or off (1/0, true/false); got ${quote(raw)}`)
}

function envUrl(env: Env): Source<string> | undefined {
  const raw = nonEmpty(env, 'SYNTIC_UPSTREAM_URL')
  if (raw === undefined) return undefined
  return { value: checkHttpUrl('SYNTIC_UPSTREAM_URL', raw), setting: 'SYNTIC_UPSTREAM_URL' }
}

function envFormat(env: Env): UpstreamFormat | undefined {
  const raw = nonEmpty(env, 'SYNTIC_UPSTREAM_FORMAT')
  return raw === undefined ? undefined : checkFormat('SYNTIC_UPSTREAM_FORMAT', raw)
}

function envDatabaseUrl(env: Env): string | undefined {
  const raw = nonEmpty(env, 'SYNTIC_DATABASE_URL')
  return raw === undefined ? undefined : checkDatabaseUrl('SYNTIC_DATABASE_URL', raw)
}

// --- the file ---

function readConfigFile(path: string): FileSettings {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new ConfigError('SYNTIC_CONFIG', `cannot read the config file ${path}: ${reason(error)}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new ConfigError('SYNTIC_CONFIG', `the config file ${path} is not JSON: ${reason(error)}`)
  }
  if (!isPlainObject(parsed)) {
    throw new ConfigError('SYNTIC_CONFIG', `the config file ${path} must hold a JSON object`)
  }
  return fileSettings(parsed, path)
}

function fileSettings(raw: Record<string, unknown>, path: string): FileSettings {
  const at = (key: string) => `${path}: "${key}"`
  unknownKeys(raw, FILE_KEYS, path, '')
  const settings: FileSettings = {}
  if (raw.host !== undefined)
    settings.host = { value: fileString(raw.host, at('host')), setting: at('host') }
  if (raw.port !== undefined) {
    settings.port = { value: checkInteger(at('port'), raw.port, 0, 65_535), setting: at('port') }
  }
  if (raw.home !== undefined)
    settings.home = { value: fileString(raw.home, at('home')), setting: at('home') }
  if (raw.databaseUrl !== undefined) {
    const setting = at('databaseUrl')
    settings.databaseUrl = {
      value: checkDatabaseUrl(setting, fileString(raw.databaseUrl, setting)),
      setting,
    }
  }
  if (raw.bodyLimitBytes !== undefined) {
    const setting = at('bodyLimitBytes')
    settings.bodyLimitBytes = {
      value: checkInteger(setting, raw.bodyLimitBytes, 1, MAX_BODY_LIMIT_BYTES),
      setting,
    }
  }
  if (raw.requestLog !== undefined) {
    const setting = at('requestLog')
    if (typeof raw.requestLog !== 'boolean') {
      throw new ConfigError(
        setting,
        `${setting} must be true or false; got ${describe(raw.requestLog)}`,
      )
    }
    settings.requestLog = { value: raw.requestLog, setting }
  }
  if (raw.filesMaxBytes !== undefined) {
    const setting = at('filesMaxBytes')
    settings.filesMaxBytes = {
      value: checkInteger(setting, raw.filesMaxBytes, 1, MAX_FILES_MAX_BYTES),
      setting,
    }
  }
  if (raw.models !== undefined) settings.models = fileModels(raw.models, at('models'))
  if (raw.upstream !== undefined) fileUpstream(raw.upstream, path, settings)
  if (raw.embeddings !== undefined) fileEmbeddings(raw.embeddings, path, settings)
  if (raw.tiers !== undefined) settings.tiers = fileTiers(raw.tiers, path)
  return settings
}

/** `{"team": {"containerLimit": 50}}`: what each tier sets, by the names `syntic orgs` stores. */
function fileTiers(raw: unknown, path: string): Record<string, TierConfig> {
  const setting = `${path}: "tiers"`
  if (!isPlainObject(raw)) {
    throw new ConfigError(
      setting,
      `${setting} must map tier names to their limits, like {"team": {"containerLimit": 50}}`,
    )
  }
  // A null prototype: tier names come from the store and must never reach Object.prototype.
  const tiers: Record<string, TierConfig> = Object.create(null)
  for (const [name, tier] of Object.entries(raw)) {
    const problem = checkTier(name)
    if (problem !== null) {
      throw new ConfigError(setting, `${setting} has the tier name ${quote(name)}: ${problem}`)
    }
    const at = `${path}: "tiers.${name}"`
    if (!isPlainObject(tier)) {
      throw new ConfigError(at, `${at} must be an object like {"containerLimit": 50}`)
    }
    unknownKeys(tier, TIER_KEYS, path, `tiers.${name}.`)
    const limitAt = `${path}: "tiers.${name}.containerLimit"`
    if (tier.containerLimit === undefined) {
      throw new ConfigError(limitAt, `${limitAt} is missing; it is the tier's live-container limit`)
    }
    const limit = checkInteger(limitAt, tier.containerLimit, 0, MAX_CONTAINER_LIMIT)
    tiers[name] = { containerLimit: limit }
  }
  return tiers
}

function fileEmbeddings(raw: unknown, path: string, settings: FileSettings): void {
  const at = (key: string) => `${path}: "embeddings.${key}"`
  if (!isPlainObject(raw)) {
    throw new ConfigError(`${path}: "embeddings"`, `${path}: "embeddings" must be an object`)
  }
  unknownKeys(raw, EMBEDDINGS_KEYS, path, 'embeddings.')
  if (raw.url !== undefined) {
    const setting = at('url')
    const value = checkHttpUrl(setting, fileString(raw.url, setting), EMBEDDINGS_KEY_HINT)
    settings.embeddingsUrl = { value, setting }
  }
  if (raw.model !== undefined) {
    settings.embeddingsModel = { value: fileString(raw.model, at('model')), setting: at('model') }
  }
  if (raw.apiKey !== undefined) {
    const setting = at('apiKey')
    settings.embeddingsApiKey = { value: fileString(raw.apiKey, setting), setting }
  }
}

function fileUpstream(raw: unknown, path: string, settings: FileSettings): void {
  const at = (key: string) => `${path}: "upstream.${key}"`
  if (!isPlainObject(raw)) {
    throw new ConfigError(`${path}: "upstream"`, `${path}: "upstream" must be an object`)
  }
  unknownKeys(raw, UPSTREAM_KEYS, path, 'upstream.')
  if (raw.url !== undefined) {
    const setting = at('url')
    settings.upstreamUrl = { value: checkHttpUrl(setting, fileString(raw.url, setting)), setting }
  }
  if (raw.apiKey !== undefined) {
    settings.upstreamApiKey = { value: fileString(raw.apiKey, at('apiKey')), setting: at('apiKey') }
  }
  if (raw.format !== undefined) {
    const setting = at('format')
    settings.upstreamFormat = {
      value: checkFormat(setting, fileString(raw.format, setting)),
      setting,
    }
  }
  if (raw.timeoutMs !== undefined) {
    const setting = at('timeoutMs')
    settings.upstreamTimeoutMs = {
      value: checkInteger(setting, raw.timeoutMs, 1, MAX_TIMEOUT_MS),
      setting,
    }
  }
  if (raw.connectTimeoutMs !== undefined) {
    const setting = at('connectTimeoutMs')
    settings.upstreamConnectTimeoutMs = {
      value: checkInteger(setting, raw.connectTimeoutMs, 1, MAX_TIMEOUT_MS),
      setting,
    }
  }
}

const SERVER_TOOLS = ['syntic_code_execution', 'syntic_tool_search']

/** `{ "id": "upstream-id", "server_tools": [...] }`, the object form of a model entry. */
function fileModel(raw: Record<string, unknown>, name: string, setting: string): ModelConfig {
  const at = `${setting}.${name}`
  for (const key of Object.keys(raw)) {
    if (key !== 'id' && key !== 'server_tools') {
      throw new ConfigError(at, `${at} has the unknown key ${quote(key)}; use id and server_tools`)
    }
  }
  if (typeof raw.id !== 'string' || raw.id.trim() === '') {
    throw new ConfigError(at, `${at}.id must be a non-empty upstream model id`)
  }
  const model: ModelConfig = { id: raw.id }
  if (raw.server_tools !== undefined) {
    const tools = raw.server_tools
    if (!Array.isArray(tools) || !tools.every((t) => SERVER_TOOLS.includes(t))) {
      throw new ConfigError(
        at,
        `${at}.server_tools must list server tools the model may use, among ${SERVER_TOOLS.join(', ')}`,
      )
    }
    model.server_tools = [...tools]
  }
  return model
}

function fileModels(raw: unknown, setting: string): Record<string, string | ModelConfig> {
  if (!isPlainObject(raw)) {
    throw new ConfigError(
      setting,
      `${setting} must map Syntic model names to upstream model ids, like {"Syntic Code": "qwen2.5-coder-32b"}`,
    )
  }
  // A null prototype: model names come from clients and must never reach Object.prototype.
  const models: Record<string, string | ModelConfig> = Object.create(null)
  for (const [name, id] of Object.entries(raw)) {
    if (name.trim() === '') throw new ConfigError(setting, `${setting} has an empty model name`)
    if (isPlainObject(id)) {
      models[name] = fileModel(id, name, setting)
      continue
    }
    if (typeof id !== 'string' || id.trim() === '') {
      throw new ConfigError(
        setting,
        `${setting} maps ${quote(name)} to ${describe(id)}; it must be a non-empty upstream model id`,
      )
    }
    models[name] = id
  }
  return models
}

function unknownKeys(
  raw: Record<string, unknown>,
  known: readonly string[],
  path: string,
  prefix: string,
): void {
  const unknown = Object.keys(raw).find((key) => !known.includes(key))
  if (unknown !== undefined) {
    const setting = `${path}: "${prefix}${unknown}"`
    throw new ConfigError(
      setting,
      `${setting} is not a setting; the settings are ${known.map((k) => prefix + k).join(', ')}`,
    )
  }
}

function fileString(value: unknown, setting: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigError(setting, `${setting} must be a non-empty string; got ${describe(value)}`)
  }
  return value.trim()
}

// --- checks shared by both sources ---

function checkInteger(setting: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(
      setting,
      `${setting} must be a whole number from ${min} to ${max}; got ${describe(value)}`,
    )
  }
  return value
}

// The URL may carry credentials: messages name the setting and the problem, never the value.
function checkHttpUrl(setting: string, value: string, keyHint = UPSTREAM_KEY_HINT): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(
      setting,
      `${setting} is not a valid URL; it must be an http(s) URL like http://127.0.0.1:8000/v1`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(setting, `${setting} must be an http(s) URL (http:// or https://)`)
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError(setting, `${setting} must not hold a user name or password; ${keyHint}`)
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError(setting, `${setting} must be a base URL without ?query or #fragment`)
  }
  return value.replace(/\/+$/, '')
}

function checkFormat(setting: string, value: string): UpstreamFormat {
  const format = UPSTREAM_FORMATS.find((f) => f === value)
  if (format === undefined) {
    throw new ConfigError(setting, `${setting} must be openai or anthropic; got ${quote(value)}`)
  }
  return format
}

function checkDatabaseUrl(setting: string, value: string): string {
  if (!/^postgres(ql)?:\/\/./.test(value)) {
    // The URL may carry a password: name the setting, never echo the value.
    throw new ConfigError(setting, `${setting} must be a postgres:// or postgresql:// URL`)
  }
  return value
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (typeof value === 'string') return quote(value)
  if (value === null || typeof value !== 'object') return String(value)
  return Array.isArray(value) ? 'an array' : 'an object'
}

function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
