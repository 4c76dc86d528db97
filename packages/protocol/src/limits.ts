// Limits named after the spec's words, in one place.

/** The prefix reserved for built-in tools (spec: Build notes). */
export const RESERVED_TOOL_PREFIX = 'syntic_'

/** Longest `root` display path a standard tool entry may set, in characters. */
export const ROOT_MAX_CHARS = 1024

/**
 * Bounds for the shell's `max_output_chars`. Below 1,000 characters a single error message or
 * stack trace no longer fits, so the model cannot work; above 1,000,000 (roughly 250,000 tokens)
 * the output alone would overflow any model's context, so the number promises nothing useful.
 */
export const MAX_OUTPUT_CHARS_MIN = 1_000
export const MAX_OUTPUT_CHARS_MAX = 1_000_000

/**
 * Bounds on what a request may carry for tool search beyond the spec's own limits
 * (server-tools/types.ts). They stop hostile input early without refusing real use.
 */
/** Tool names in records are tool names: 1 to 64 characters, as both official APIs define them. */
export const RECORD_NAME_MAX_CHARS = 64
/** Names one `tool_search` record or search result may list: every tool a request may have. */
export const RECORD_LOADED_MAX = 10_000
/** Server tool calls one assistant message may carry; a loop runs far fewer turns than this. */
export const SERVER_TOOL_CALLS_MAX = 1_000
/** Longest server tool call id; the server's own `srv_` ids are much shorter. */
export const SERVER_TOOL_CALL_ID_MAX_CHARS = 256
/** Longest search query sent back in a record: far beyond any useful query, still bounded. */
export const TOOL_SEARCH_QUERY_MAX_CHARS = 10_000

/** Most `mcp_servers` entries a request may list. */
export const MCP_SERVERS_MAX = 64
/** An MCP server's name: a short label, like a tool name. */
export const MCP_SERVER_NAME_MAX_CHARS = 64
/** Longest MCP server URL (the common limit of browsers and proxies). */
export const MCP_SERVER_URL_MAX_CHARS = 2048
/** Longest `authorization_token`; large enough for signed JWTs carrying many claims. */
export const MCP_AUTHORIZATION_TOKEN_MAX_CHARS = 16_384
/** Longest name in `tool_configuration.allowed_tools`. */
export const MCP_TOOL_NAME_MAX_CHARS = 128
