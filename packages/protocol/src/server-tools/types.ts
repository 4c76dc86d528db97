// Server tools: tools the server runs itself while it loops with the model (tool search now, code
// execution next). These are the wire shapes callers see and send back.
import type {
  CODE_EXECUTION_TYPE,
  CodeExecutionCall,
  CodeExecutionLanguage,
  CodeExecutionStatus,
  MessagesCodeExecutionResultBlock,
  MessagesCodeExecutionUseBlock,
} from './code-execution.js'

export const TOOL_SEARCH_TYPE = 'syntic_tool_search'

export const TOOL_SEARCH_MODES = ['keyword', 'semantic'] as const
export type ToolSearchMode = (typeof TOOL_SEARCH_MODES)[number]

/** Spec: Request fields and Cost and limits. */
export const TOOL_SEARCH_MAX_RESULTS_MIN = 1
export const TOOL_SEARCH_MAX_RESULTS_MAX = 10
export const TOOL_SEARCH_MAX_RESULTS_DEFAULT = 5
export const TOOL_SEARCH_MAX_LOADED = 128
export const TOOLS_PER_REQUEST_MAX = 10_000

/** `{"type": "syntic_tool_search", "mode": "semantic", "max_results": 5}` in `tools`. */
export interface ToolSearchToolEntry {
  type: typeof TOOL_SEARCH_TYPE
  mode?: ToolSearchMode
  max_results?: number
}

/** An entry of `message.server_tool_calls[]` for a search (spec: Response). */
export interface ToolSearchCall {
  id: string
  type: typeof TOOL_SEARCH_TYPE
  query: string
  loaded: string[]
  status: 'ok' | 'error'
}

export type ServerToolCall = ToolSearchCall | CodeExecutionCall

/**
 * The `tool_search` record on an assistant message: the deferred tools loaded when the message
 * was written. A client that sends the message back unchanged gets them loaded again.
 */
export interface ToolSearchRecord {
  loaded: string[]
}

/** One `server_tool_calls` element of a streamed chat delta: first `running`, then the result. */
export interface ServerToolCallDelta {
  index: number
  id: string
  type: typeof TOOL_SEARCH_TYPE | typeof CODE_EXECUTION_TYPE
  status: 'running' | 'ok' | 'error' | CodeExecutionStatus
  query?: string
  loaded?: string[]
  exit_code?: number | null
  duration_ms?: number
  language?: CodeExecutionLanguage
  code?: string
  stdout?: string
  stderr?: string
}

/**
 * On `/v1/messages` a search is two content blocks of the assistant message, in the order they
 * happened among its text and tool_use blocks; sent back unchanged, the result blocks are the
 * `tool_search` record.
 */
export interface MessagesServerToolUseBlock {
  type: 'server_tool_use'
  id: string
  name: typeof TOOL_SEARCH_TYPE
  input: { query: string }
}

export interface MessagesToolSearchResultBlock {
  type: 'syntic_tool_search_result'
  tool_use_id: string
  loaded: string[]
  status: 'ok' | 'error'
}

export type MessagesServerBlock =
  | MessagesServerToolUseBlock
  | MessagesToolSearchResultBlock
  | MessagesCodeExecutionUseBlock
  | MessagesCodeExecutionResultBlock

/**
 * An `mcp_servers[]` entry, on both endpoints. Validated and kept in the request; the MCP
 * connector comes later, so for now such a server contributes no tools.
 */
export interface McpServerEntry {
  type: 'url'
  url: string
  name: string
  authorization_token?: string
  /** `true` keeps the server's tools out of the prompt until a search finds them. */
  defer_loading?: boolean
  tool_configuration?: { enabled?: boolean; allowed_tools?: string[] }
}
