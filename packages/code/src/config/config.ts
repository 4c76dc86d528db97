// Syntic Code's settings: command-line flags win over the environment, which wins over
// `~/.syntic/code.json`. Every value is checked here, at start-up, so the agent trusts its config.
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { PERMISSION_MODES, type PermissionMode } from '../session/types.js'

/** Where the model is: a Syntic server (it expands the standard tools) or a bare upstream. */
export type ModelTarget =
  | { kind: 'syntic'; baseUrl: string; apiKey: string }
  | { kind: 'upstream'; baseUrl: string; apiKey: string | undefined }

export interface CodeConfig {
  target: ModelTarget
  model: string
  mode: PermissionMode
  /** Run the shell inside bubblewrap (default true). */
  sandbox: boolean
  /** Network inside the shell's sandbox (default false). */
  network: boolean
  /** Model calls allowed in one user turn before the agent stops it. */
  maxSteps: number
  /** The folder that holds `code.json`, `memory/`, `mods/`: `~/.syntic`. */
  home: string
}

/** The flags `syntic code` accepts that are settings (the rest are actions). */
export interface ConfigFlags {
  model?: string
  mode?: string
  server?: string
  upstream?: string
  sandbox?: boolean
  network?: boolean
  maxSteps?: string
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

export const DEFAULT_MAX_STEPS = 50
const MAX_MAX_STEPS = 1000

/** The file's keys; API keys stay in the environment, never in a file others may read. */
const FILE_KEYS = ['model', 'mode', 'server', 'upstream', 'sandbox', 'network', 'max_steps']

type Env = Readonly<Record<string, string | undefined>>

interface FileSettings {
  model?: string
  mode?: string
  server?: string
  upstream?: string
  sandbox?: boolean
  network?: boolean
  max_steps?: number
}

export function synticHome(env: Env = process.env): string {
  return join(env.HOME || homedir(), '.syntic')
}

export function configFilePath(home: string): string {
  return join(home, 'code.json')
}

function readFileSettings(path: string): FileSettings {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new ConfigError(`${path} is not valid JSON`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`${path} must hold a JSON object`)
  }
  const settings = parsed as Record<string, unknown>
  for (const key of Object.keys(settings)) {
    if (!FILE_KEYS.includes(key)) {
      throw new ConfigError(
        `${path}: unknown setting "${key}" (known: ${FILE_KEYS.join(', ')}; API keys belong in the environment)`,
      )
    }
  }
  for (const key of ['model', 'mode', 'server', 'upstream']) {
    if (settings[key] !== undefined && typeof settings[key] !== 'string') {
      throw new ConfigError(`${path}: "${key}" must be a string`)
    }
  }
  for (const key of ['sandbox', 'network']) {
    if (settings[key] !== undefined && typeof settings[key] !== 'boolean') {
      throw new ConfigError(`${path}: "${key}" must be true or false`)
    }
  }
  if (settings.max_steps !== undefined && typeof settings.max_steps !== 'number') {
    throw new ConfigError(`${path}: "max_steps" must be a number`)
  }
  return settings as FileSettings
}

function checkUrl(value: string, where: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(
      `${where}: "${value}" is not a URL (expected e.g. http://127.0.0.1:8080/v1)`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${where}: "${value}" must be an http:// or https:// URL`)
  }
  return value.replace(/\/+$/, '')
}

function checkMode(value: string, where: string): PermissionMode {
  if ((PERMISSION_MODES as readonly string[]).includes(value)) return value as PermissionMode
  throw new ConfigError(`${where}: unknown mode "${value}" (one of ${PERMISSION_MODES.join(', ')})`)
}

function checkSteps(value: string | number, where: string): number {
  const n = typeof value === 'number' ? value : Number(value)
  if (!Number.isInteger(n) || n < 1 || n > MAX_MAX_STEPS) {
    throw new ConfigError(`${where}: max steps must be a whole number from 1 to ${MAX_MAX_STEPS}`)
  }
  return n
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}

/**
 * Picks the target from the first layer that names one: flags, then the environment, then the
 * file. Within the environment a Syntic server wins over `OPENAI_BASE_URL`, which other tools set.
 */
function resolveTarget(
  flags: ConfigFlags,
  env: Env,
  file: FileSettings,
  path: string,
): ModelTarget {
  const flagServer = nonEmpty(flags.server)
  const flagUpstream = nonEmpty(flags.upstream)
  if (flagServer !== undefined && flagUpstream !== undefined) {
    throw new ConfigError('pass either --server or --upstream, not both')
  }
  if (file.server !== undefined && file.upstream !== undefined) {
    throw new ConfigError(`${path}: set either "server" or "upstream", not both`)
  }
  // Each layer names its two settings the way the user wrote them, for error messages.
  const layers = [
    { server: [flagServer, '--server'], upstream: [flagUpstream, '--upstream'] },
    {
      server: [nonEmpty(env.SYNTIC_BASE_URL), 'SYNTIC_BASE_URL'],
      upstream: [nonEmpty(env.OPENAI_BASE_URL), 'OPENAI_BASE_URL'],
    },
    {
      server: [nonEmpty(file.server), `${path}: server`],
      upstream: [nonEmpty(file.upstream), `${path}: upstream`],
    },
  ] as const
  for (const { server, upstream } of layers) {
    const [serverUrl, serverSetting] = server
    if (serverUrl !== undefined) {
      const baseUrl = checkUrl(serverUrl, serverSetting)
      const apiKey = nonEmpty(env.SYNTIC_API_KEY)
      if (apiKey === undefined) {
        throw new ConfigError('SYNTIC_API_KEY is not set: the Syntic server needs an API key')
      }
      return { kind: 'syntic', baseUrl, apiKey }
    }
    const [upstreamUrl, upstreamSetting] = upstream
    if (upstreamUrl !== undefined) {
      return {
        kind: 'upstream',
        baseUrl: checkUrl(upstreamUrl, upstreamSetting),
        apiKey: nonEmpty(env.OPENAI_API_KEY),
      }
    }
  }
  throw new ConfigError(
    'no model server configured: set SYNTIC_BASE_URL (and SYNTIC_API_KEY) for a Syntic server, or pass --upstream URL / set OPENAI_BASE_URL for an OpenAI-compatible upstream',
  )
}

/** Reads and checks every setting; throws `ConfigError` with what to change. */
export function resolveConfig(flags: ConfigFlags, env: Env = process.env): CodeConfig {
  const home = synticHome(env)
  const path = configFilePath(home)
  const file = readFileSettings(path)
  const target = resolveTarget(flags, env, file, path)
  const model = nonEmpty(flags.model) ?? nonEmpty(env.SYNTIC_MODEL) ?? nonEmpty(file.model)
  if (model === undefined) {
    throw new ConfigError(
      `no model: pass --model NAME, set SYNTIC_MODEL, or set "model" in ${path}`,
    )
  }
  let mode: PermissionMode = 'default'
  if (flags.mode !== undefined) mode = checkMode(flags.mode, '--mode')
  else if (nonEmpty(env.SYNTIC_CODE_MODE) !== undefined)
    mode = checkMode(env.SYNTIC_CODE_MODE!.trim(), 'SYNTIC_CODE_MODE')
  else if (file.mode !== undefined) mode = checkMode(file.mode, `${path}: mode`)
  let maxSteps = DEFAULT_MAX_STEPS
  if (flags.maxSteps !== undefined) maxSteps = checkSteps(flags.maxSteps, '--max-steps')
  else if (file.max_steps !== undefined) maxSteps = checkSteps(file.max_steps, `${path}: max_steps`)
  return {
    target,
    model,
    mode,
    sandbox: flags.sandbox ?? file.sandbox ?? true,
    network: flags.network ?? file.network ?? false,
    maxSteps,
    home,
  }
}
