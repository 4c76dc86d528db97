// Checks of the request fields tool search adds, shared by both endpoints: the search tool entry,
// `defer_loading`, `mcp_servers`, and the spec's three errors (too_many_tools,
// tool_search_required, all_tools_deferred).
import {
  asArray,
  asBoolean,
  asIntegerIn,
  asOneOf,
  asRecord,
  asStringOfLength,
  checkKeys,
  quote,
  reject,
  rejectListedTwice,
  tooMany,
} from '../chat/request-check.js'
import { TOOLS_MAX } from '../chat/request-limits.js'
import {
  MCP_AUTHORIZATION_TOKEN_MAX_CHARS,
  MCP_SERVER_NAME_MAX_CHARS,
  MCP_SERVER_URL_MAX_CHARS,
  MCP_SERVERS_MAX,
  MCP_TOOL_NAME_MAX_CHARS,
} from '../limits.js'
import {
  TOOL_SEARCH_MAX_RESULTS_MAX,
  TOOL_SEARCH_MAX_RESULTS_MIN,
  TOOL_SEARCH_MODES,
  TOOL_SEARCH_TYPE,
} from './types.js'

/** What a request's tools say about tool search, gathered while its validator walks them. */
export interface ToolSearchUsage {
  /** Where the search tool entry is listed, if it is. */
  searchAt: string | undefined
  /** Names of the deferred tools. */
  deferred: Set<string>
  /** The first `defer_loading: true`, of a tool or an MCP server. */
  firstDeferredAt: string | undefined
  /** Tools the model sees from the start, the search tool aside. */
  loaded: number
}

export function newToolSearchUsage(): ToolSearchUsage {
  return { searchAt: undefined, deferred: new Set(), firstDeferredAt: undefined, loaded: 0 }
}

const SEARCH_ENTRY_KEYS: ReadonlySet<string> = new Set(['type', 'mode', 'max_results'])

/** Checks `{ "type": "syntic_tool_search", "mode"?, "max_results"? }`, listed at most once. */
export function checkToolSearchEntry(
  entry: Record<string, unknown>,
  at: string,
  usage: ToolSearchUsage,
): void {
  if (usage.searchAt !== undefined) rejectListedTwice(TOOL_SEARCH_TYPE, usage.searchAt, at)
  usage.searchAt = at
  checkKeys(entry, SEARCH_ENTRY_KEYS, at)
  if (entry.mode !== undefined) asOneOf(entry.mode, `${at}.mode`, TOOL_SEARCH_MODES)
  if (entry.max_results !== undefined) {
    asIntegerIn(
      entry.max_results,
      `${at}.max_results`,
      TOOL_SEARCH_MAX_RESULTS_MIN,
      TOOL_SEARCH_MAX_RESULTS_MAX,
    )
  }
}

/** Reads a caller-defined tool's `defer_loading` and counts the tool as deferred or loaded. */
export function noteDeferLoading(
  value: unknown,
  at: string,
  name: string,
  usage: ToolSearchUsage,
): void {
  if (value !== undefined && asBoolean(value, `${at}.defer_loading`)) {
    usage.deferred.add(name)
    usage.firstDeferredAt ??= `${at}.defer_loading`
  } else {
    usage.loaded += 1
  }
}

/**
 * Standard tools are small and always loaded; an entry that asks otherwise is told so rather than
 * getting the generic unknown-option error.
 */
export function rejectDeferredStandardTool(entry: Record<string, unknown>, at: string): void {
  if (entry.defer_loading === undefined) return
  reject(
    'unknown_parameter',
    `${at}.defer_loading`,
    `defer_loading applies to function and custom tools and to mcp_servers entries, not to standard tools such as ${quote(String(entry.type))}, which are always loaded; remove it.`,
  )
}

/**
 * Rejects more than 10,000 tools in total: `entries` tool entries of which `searchEntries` are the
 * search tool's, which counts for nothing as it is no tool of the caller's. Callers check before
 * walking the list too, allowing for one search entry, so a hostile list fails before any of its
 * entries is looked at.
 */
export function checkToolCount(entries: number, searchEntries: number, param: string): void {
  if (entries - searchEntries <= TOOLS_MAX) return
  reject(
    'too_many_tools',
    param,
    `The request lists ${entries.toLocaleString('en-US')} tools; at most ${TOOLS_MAX.toLocaleString('en-US')} are allowed per request, plus the ${TOOL_SEARCH_TYPE} entry.`,
  )
}

const MCP_SERVER_KEYS: ReadonlySet<string> = new Set([
  'type',
  'url',
  'name',
  'authorization_token',
  'defer_loading',
  'tool_configuration',
])
const TOOL_CONFIGURATION_KEYS: ReadonlySet<string> = new Set(['enabled', 'allowed_tools'])

/** An error about a field that may hold a secret: says what is expected, never repeats it. */
function rejectSecret(param: string, expected: string): never {
  return reject(
    'invalid_request',
    param,
    `Invalid value for ${param}: expected ${expected}. The value is not repeated here, as it may hold a secret.`,
  )
}

function parsedUrl(text: string): URL | undefined {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

function checkMcpUrl(value: unknown, param: string): void {
  const expected = `an http:// or https:// URL of at most ${MCP_SERVER_URL_MAX_CHARS} characters`
  const url =
    typeof value === 'string' && value.length <= MCP_SERVER_URL_MAX_CHARS
      ? parsedUrl(value)
      : undefined
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    rejectSecret(param, expected)
  }
  if (url.username !== '' || url.password !== '') {
    rejectSecret(param, 'a URL without credentials; send the token in authorization_token')
  }
}

function checkToolConfiguration(value: unknown, param: string): void {
  const configuration = asRecord(value, param)
  checkKeys(configuration, TOOL_CONFIGURATION_KEYS, param)
  if (configuration.enabled !== undefined) asBoolean(configuration.enabled, `${param}.enabled`)
  if (configuration.allowed_tools === undefined) return
  const at = `${param}.allowed_tools`
  const names = asArray(configuration.allowed_tools, at)
  if (names.length > TOOLS_MAX) tooMany(at, TOOLS_MAX, names.length, 'tool names')
  for (let i = 0; i < names.length; i++) {
    asStringOfLength(names[i], `${at}[${i}]`, 1, MCP_TOOL_NAME_MAX_CHARS)
  }
}

/**
 * Checks `mcp_servers`: `{ type: "url", url, name, authorization_token?, defer_loading?,
 * tool_configuration? }` entries with unique names. URLs and tokens are never echoed in errors.
 */
export function checkMcpServers(value: unknown, param: string, usage: ToolSearchUsage): void {
  const servers = asArray(value, param)
  if (servers.length > MCP_SERVERS_MAX) {
    tooMany(param, MCP_SERVERS_MAX, servers.length, 'MCP servers')
  }
  const names = new Set<string>()
  for (let i = 0; i < servers.length; i++) {
    const at = `${param}[${i}]`
    const server = asRecord(servers[i], at)
    checkKeys(server, MCP_SERVER_KEYS, at)
    asOneOf(server.type, `${at}.type`, ['url'])
    checkMcpUrl(server.url, `${at}.url`)
    const name = asStringOfLength(server.name, `${at}.name`, 1, MCP_SERVER_NAME_MAX_CHARS)
    if (names.has(name)) {
      reject(
        'invalid_request',
        `${at}.name`,
        `Duplicate MCP server name ${quote(name)}: each server needs its own name.`,
      )
    }
    names.add(name)
    const token = server.authorization_token
    if (
      token !== undefined &&
      (typeof token !== 'string' ||
        token.length === 0 ||
        token.length > MCP_AUTHORIZATION_TOKEN_MAX_CHARS)
    ) {
      rejectSecret(
        `${at}.authorization_token`,
        `a string of 1 to ${MCP_AUTHORIZATION_TOKEN_MAX_CHARS} characters`,
      )
    }
    if (
      server.defer_loading !== undefined &&
      asBoolean(server.defer_loading, `${at}.defer_loading`)
    ) {
      usage.firstDeferredAt ??= `${at}.defer_loading`
    }
    if (server.tool_configuration !== undefined) {
      checkToolConfiguration(server.tool_configuration, `${at}.tool_configuration`)
    }
  }
}

/** Rejects deferred tools or servers without the search tool that could load them. */
export function checkToolSearchRequired(usage: ToolSearchUsage): void {
  if (usage.firstDeferredAt === undefined || usage.searchAt !== undefined) return
  reject(
    'tool_search_required',
    usage.firstDeferredAt,
    `${usage.firstDeferredAt} is true, but nothing could load deferred tools: add { "type": "${TOOL_SEARCH_TYPE}" } to tools, or stop deferring.`,
  )
}

/** A tool that tool_choice (or function_call) names, with where it does. */
export interface ChosenTool {
  name: string
  param: string
}

/**
 * Rejects a tool_choice that names a deferred tool when no tool would be loaded otherwise. With
 * other tools loaded, the chosen tool is loaded from the start instead (see planToolSearch).
 */
export function checkChosenToolLoadable(
  usage: ToolSearchUsage,
  chosen: ChosenTool | undefined,
): void {
  if (chosen === undefined || usage.loaded > 0 || !usage.deferred.has(chosen.name)) return
  reject(
    'all_tools_deferred',
    chosen.param,
    `tool_choice names ${quote(chosen.name)}, which is deferred, and every other tool is deferred too, so nothing would be loaded; keep at least one tool loaded (defer_loading false), or do not name a deferred tool in tool_choice.`,
  )
}
