// The messages wire format (`POST /v1/messages`), shaped like Anthropic's Messages API. Field
// names follow the official `@anthropic-ai/sdk` type definitions.
import type { StandardToolEntry } from '../chat/types.js'
import type {
  CodeExecutionFile,
  CodeExecutionToolEntry,
  ContainerInfo,
  IncludeValue,
  MessagesCodeExecutionResultBlock,
  MessagesCodeExecutionUseBlock,
  ServerToolUsage,
} from '../server-tools/code-execution.js'
import type {
  McpServerEntry,
  MessagesServerToolUseBlock,
  MessagesToolSearchResultBlock,
  ToolSearchToolEntry,
} from '../server-tools/types.js'

export interface MessagesCacheControl {
  type: 'ephemeral'
  ttl?: '5m' | '1h'
}

export interface MessagesTextBlockParam {
  type: 'text'
  text: string
  cache_control?: MessagesCacheControl | null
  citations?: Record<string, unknown>[] | null
}

export type MessagesImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'

export type MessagesImageSource =
  | { type: 'base64'; media_type: MessagesImageMediaType; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string }

export interface MessagesImageBlockParam {
  type: 'image'
  source: MessagesImageSource
  cache_control?: MessagesCacheControl | null
  transformations?: { oversized_image?: 'downsize' | 'error' } | null
}

export type MessagesDocumentSource =
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'text'; media_type: 'text/plain'; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string }
  | { type: 'content'; content: string | (MessagesTextBlockParam | MessagesImageBlockParam)[] }

export interface MessagesDocumentBlockParam {
  type: 'document'
  source: MessagesDocumentSource
  title?: string | null
  context?: string | null
  citations?: { enabled?: boolean } | null
  cache_control?: MessagesCacheControl | null
}

export interface MessagesToolUseBlockParam {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
  cache_control?: MessagesCacheControl | null
}

export type MessagesToolResultContent =
  | MessagesTextBlockParam
  | MessagesImageBlockParam
  | MessagesDocumentBlockParam

export interface MessagesToolResultBlockParam {
  type: 'tool_result'
  tool_use_id: string
  content?: string | MessagesToolResultContent[]
  is_error?: boolean
  cache_control?: MessagesCacheControl | null
}

export interface MessagesThinkingBlockParam {
  type: 'thinking'
  thinking: string
  signature: string
}

export interface MessagesRedactedThinkingBlockParam {
  type: 'redacted_thinking'
  data: string
}

export type MessagesContentBlockParam =
  | MessagesTextBlockParam
  | MessagesImageBlockParam
  | MessagesDocumentBlockParam
  | MessagesToolUseBlockParam
  | MessagesToolResultBlockParam
  | MessagesThinkingBlockParam
  | MessagesRedactedThinkingBlockParam
  | MessagesServerToolUseBlock
  | MessagesToolSearchResultBlock
  | MessagesCodeExecutionUseBlock
  | MessagesCodeExecutionResultBlock

export interface MessagesUserMessage {
  role: 'user'
  content: string | MessagesContentBlockParam[]
}

export interface MessagesAssistantMessage {
  role: 'assistant'
  content: string | MessagesContentBlockParam[]
}

/** A system turn inside `messages`, which the current API accepts besides top-level `system`. */
export interface MessagesSystemMessage {
  role: 'system'
  content: string | MessagesTextBlockParam[]
}

export type MessagesMessageParam =
  | MessagesUserMessage
  | MessagesAssistantMessage
  | MessagesSystemMessage

export interface MessagesInputSchema {
  type: 'object'
  properties?: unknown
  required?: string[] | null
  [key: string]: unknown
}

/** A client tool defined by the caller (`type` is absent, null or `custom`). */
export interface MessagesCustomTool {
  type?: 'custom' | null
  name: string
  description?: string
  input_schema: MessagesInputSchema
  cache_control?: MessagesCacheControl | null
  strict?: boolean
  defer_loading?: boolean
  eager_input_streaming?: boolean | null
  input_examples?: Record<string, unknown>[]
  allowed_callers?: string[]
}

export type MessagesTool =
  | MessagesCustomTool
  | StandardToolEntry
  | ToolSearchToolEntry
  | CodeExecutionToolEntry

export type MessagesToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' }

export type MessagesThinkingConfig =
  | { type: 'enabled'; budget_tokens: number; display?: 'summarized' | 'omitted' | null }
  | { type: 'disabled' }
  | { type: 'adaptive'; display?: 'summarized' | 'omitted' | null }
  | { type: 'between_tools' }

/** The body of `POST /v1/messages`. */
export interface MessagesRequest {
  model: string
  messages: MessagesMessageParam[]
  max_tokens: number
  system?: string | MessagesTextBlockParam[]
  metadata?: { user_id?: string | null }
  stop_sequences?: string[]
  stream?: boolean
  temperature?: number
  top_p?: number
  top_k?: number
  tools?: MessagesTool[]
  tool_choice?: MessagesToolChoice
  thinking?: MessagesThinkingConfig
  service_tier?: 'auto' | 'standard_only'
  container?: string | { id?: string | null; skills?: Record<string, unknown>[] | null } | null
  mcp_servers?: McpServerEntry[]
  /** Syntic: extra response detail, such as each run's code and output. */
  include?: IncludeValue[]
  cache_control?: MessagesCacheControl | null
  context_management?: Record<string, unknown> | null
  diagnostics?: { previous_message_id?: string | null } | null
  inference_geo?: string | null
  output_config?: Record<string, unknown>
  speed?: 'standard' | 'fast' | null
  user_profile_id?: string
  workspace_id?: string
}

export interface MessagesTextBlock {
  type: 'text'
  text: string
  citations?: Record<string, unknown>[] | null
}

export interface MessagesToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  /** The tool input object; see translate/ for the fallback kept when a model wrote bad JSON. */
  input: unknown
}

export interface MessagesThinkingBlock {
  type: 'thinking'
  thinking: string
  signature: string
}

export interface MessagesRedactedThinkingBlock {
  type: 'redacted_thinking'
  data: string
}

export type MessagesContentBlock =
  | MessagesTextBlock
  | MessagesToolUseBlock
  | MessagesThinkingBlock
  | MessagesRedactedThinkingBlock
  | MessagesServerToolUseBlock
  | MessagesToolSearchResultBlock
  | MessagesCodeExecutionUseBlock
  | MessagesCodeExecutionResultBlock

export type MessagesStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded'

export interface MessagesUsage {
  /** Input tokens that were neither read from nor written to the prompt cache. */
  input_tokens: number
  output_tokens: number
  cache_creation_input_tokens?: number | null
  cache_read_input_tokens?: number | null
  server_tool_use?: ServerToolUsage
}

/** The response of a non-streaming messages request, and the `message` of `message_start`. */
export interface MessagesResponse {
  id: string
  type: 'message'
  role: 'assistant'
  model: string
  content: MessagesContentBlock[]
  stop_reason: MessagesStopReason | null
  stop_sequence: string | null
  usage: MessagesUsage
  /** Syntic code execution: the container the runs used, and the files they wrote. */
  container?: ContainerInfo
  files?: CodeExecutionFile[]
}

export interface MessagesMessageStartEvent {
  type: 'message_start'
  message: MessagesResponse
}

export interface MessagesContentBlockStartEvent {
  type: 'content_block_start'
  index: number
  content_block: MessagesContentBlock
}

export type MessagesContentBlockDelta =
  | { type: 'text_delta'; text: string }
  /** Fragments of the tool input's JSON text; concatenated they parse to the input. */
  | { type: 'input_json_delta'; partial_json: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'citations_delta'; citation: Record<string, unknown> }

export interface MessagesContentBlockDeltaEvent {
  type: 'content_block_delta'
  index: number
  delta: MessagesContentBlockDelta
}

export interface MessagesContentBlockStopEvent {
  type: 'content_block_stop'
  index: number
}

/** Usage in `message_delta`: cumulative totals; fields that are null or absent did not change. */
export interface MessagesDeltaUsage {
  output_tokens: number
  input_tokens?: number | null
  cache_creation_input_tokens?: number | null
  cache_read_input_tokens?: number | null
  server_tool_use?: ServerToolUsage
}

export interface MessagesMessageDeltaEvent {
  type: 'message_delta'
  delta: {
    stop_reason: MessagesStopReason | null
    stop_sequence: string | null
    /** Syntic code execution, in the last message_delta (the Anthropic SDK keeps `container`). */
    container?: ContainerInfo
    files?: CodeExecutionFile[]
  }
  usage: MessagesDeltaUsage
}

export interface MessagesMessageStopEvent {
  type: 'message_stop'
}

export interface MessagesPingEvent {
  type: 'ping'
}

export interface MessagesErrorEvent {
  type: 'error'
  error: { type: string; message: string }
}

/** One server-sent event of a streaming messages response; its SSE `event:` name is `type`. */
export type MessagesStreamEvent =
  | MessagesMessageStartEvent
  | MessagesContentBlockStartEvent
  | MessagesContentBlockDeltaEvent
  | MessagesContentBlockStopEvent
  | MessagesMessageDeltaEvent
  | MessagesMessageStopEvent
  | MessagesPingEvent
  | MessagesErrorEvent
