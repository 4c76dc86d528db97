// The chat completions wire format (`POST /v1/chat/completions`), shaped like OpenAI's API and the
// server's internal format. Field names follow the official `openai` SDK's type definitions.
import type {
  CodeExecutionFile,
  CodeExecutionToolEntry,
  ContainerInfo,
  IncludeValue,
  ServerToolUsage,
} from '../server-tools/code-execution.js'
import type {
  McpServerEntry,
  ServerToolCall,
  ServerToolCallDelta,
  ToolSearchRecord,
  ToolSearchToolEntry,
} from '../server-tools/types.js'
import type { StandardToolType } from '../standard-tools/types.js'

/** Marks where a prompt cache may end (OpenAI's explicit cache breakpoint). */
export interface ChatPromptCacheBreakpoint {
  mode: 'explicit'
}

export interface ChatTextPart {
  type: 'text'
  text: string
  prompt_cache_breakpoint?: ChatPromptCacheBreakpoint
}

export interface ChatImagePart {
  type: 'image_url'
  /** `url` is an http(s) address or a `data:<media type>;base64,<data>` URL. */
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' }
  prompt_cache_breakpoint?: ChatPromptCacheBreakpoint
}

export interface ChatInputAudioPart {
  type: 'input_audio'
  input_audio: { data: string; format: 'wav' | 'mp3' }
  prompt_cache_breakpoint?: ChatPromptCacheBreakpoint
}

export interface ChatFilePart {
  type: 'file'
  file: { file_data?: string; file_id?: string; filename?: string }
  prompt_cache_breakpoint?: ChatPromptCacheBreakpoint
}

export interface ChatRefusalPart {
  type: 'refusal'
  refusal: string
}

export type ChatUserContentPart = ChatTextPart | ChatImagePart | ChatInputAudioPart | ChatFilePart
export type ChatAssistantContentPart = ChatTextPart | ChatRefusalPart

export interface ChatFunctionToolCall {
  id: string
  type: 'function'
  /** `arguments` is the model's JSON text, which may be invalid JSON. */
  function: { name: string; arguments: string }
}

export interface ChatCustomToolCall {
  id: string
  type: 'custom'
  custom: { name: string; input: string }
}

export type ChatToolCall = ChatFunctionToolCall | ChatCustomToolCall

export interface ChatSystemMessage {
  role: 'system'
  content: string | ChatTextPart[]
  name?: string
}

export interface ChatDeveloperMessage {
  role: 'developer'
  content: string | ChatTextPart[]
  name?: string
}

export interface ChatUserMessage {
  role: 'user'
  content: string | ChatUserContentPart[]
  name?: string
}

export interface ChatAssistantMessage {
  role: 'assistant'
  /** Required unless `tool_calls` or `function_call` is set. */
  content?: string | ChatAssistantContentPart[] | null
  refusal?: string | null
  name?: string
  tool_calls?: ChatToolCall[]
  /** Deprecated by OpenAI in favour of `tool_calls`. */
  function_call?: { name: string; arguments: string } | null
  audio?: { id: string } | null
  /** What the server ran for this turn, as the response carried it (tool search). */
  server_tool_calls?: ServerToolCall[]
  /** The deferred tools loaded when this message was written; replayed when sent back. */
  tool_search?: ToolSearchRecord
  /** Files code execution wrote, as the response carried them; dropped before the upstream. */
  files?: CodeExecutionFile[]
}

export interface ChatToolMessage {
  role: 'tool'
  content: string | ChatTextPart[]
  tool_call_id: string
}

/** Deprecated by OpenAI in favour of `tool` messages; answers a `function_call`. */
export interface ChatFunctionMessage {
  role: 'function'
  content: string | null
  name: string
}

export type ChatMessage =
  | ChatSystemMessage
  | ChatDeveloperMessage
  | ChatUserMessage
  | ChatAssistantMessage
  | ChatToolMessage
  | ChatFunctionMessage

export type ChatRole = ChatMessage['role']

export interface ChatFunctionDefinition {
  name: string
  description?: string
  /** A JSON Schema object. */
  parameters?: Record<string, unknown>
  strict?: boolean | null
}

export interface ChatFunctionTool {
  type: 'function'
  /** `true` keeps the definition out of the prompt until a tool search loads it. */
  defer_loading?: boolean
  function: ChatFunctionDefinition
}

export interface ChatCustomToolFormat {
  type: 'text' | 'grammar'
  grammar?: { definition: string; syntax: 'lark' | 'regex' }
}

/** A tool whose input is free text rather than JSON. */
export interface ChatCustomTool {
  type: 'custom'
  defer_loading?: boolean
  custom: { name: string; description?: string; format?: ChatCustomToolFormat }
}

/**
 * A standard tool listed by type name (spec: Tool definitions), with its options. The server
 * expands it into a function tool named after the type before the model sees it.
 */
export interface StandardToolEntry {
  type: StandardToolType
  root?: string
  max_output_chars?: number
}

export type ChatTool =
  | ChatFunctionTool
  | ChatCustomTool
  | StandardToolEntry
  | ToolSearchToolEntry
  | CodeExecutionToolEntry

/** OpenAI's legacy `functions` entry. */
export interface ChatLegacyFunction {
  name: string
  description?: string
  parameters?: Record<string, unknown>
}

export type ChatToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; function: { name: string } }
  | { type: 'custom'; custom: { name: string } }
  | {
      type: 'allowed_tools'
      allowed_tools: { mode: 'auto' | 'required'; tools: Record<string, unknown>[] }
    }

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema'
      json_schema: {
        name: string
        description?: string
        schema?: Record<string, unknown>
        strict?: boolean | null
      }
    }

export type ChatReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max'

export type ChatServiceTier = 'auto' | 'default' | 'flex' | 'scale' | 'priority'

/** The body of `POST /v1/chat/completions`. */
export interface ChatCompletionRequest {
  model: string
  messages: ChatMessage[]
  tools?: ChatTool[]
  tool_choice?: ChatToolChoice
  parallel_tool_calls?: boolean
  stream?: boolean | null
  stream_options?: { include_usage?: boolean; include_obfuscation?: boolean } | null
  temperature?: number | null
  top_p?: number | null
  /** Several choices; translation to the messages format cannot express this (see translate/). */
  n?: number | null
  stop?: string | string[] | null
  max_tokens?: number | null
  max_completion_tokens?: number | null
  presence_penalty?: number | null
  frequency_penalty?: number | null
  logit_bias?: Record<string, number> | null
  logprobs?: boolean | null
  top_logprobs?: number | null
  user?: string
  safety_identifier?: string | null
  seed?: number | null
  response_format?: ChatResponseFormat
  metadata?: Record<string, string> | null
  store?: boolean | null
  reasoning_effort?: ChatReasoningEffort | null
  service_tier?: ChatServiceTier | null
  modalities?: ('text' | 'audio')[] | null
  prediction?: { type: 'content'; content: string | ChatTextPart[] } | null
  audio?: { format: string; voice: string | { id: string } } | null
  web_search_options?: Record<string, unknown>
  verbosity?: 'low' | 'medium' | 'high' | null
  prompt_cache_key?: string | null
  prompt_cache_retention?: 'in_memory' | '24h' | null
  prompt_cache_options?: { mode?: 'implicit' | 'explicit'; ttl?: '30m' }
  moderation?: { model: string; policy?: Record<string, unknown> | null } | null
  functions?: ChatLegacyFunction[]
  function_call?: 'none' | 'auto' | { name: string }
  mcp_servers?: McpServerEntry[]
  /** Syntic: extra response detail, such as each run's code and output. */
  include?: IncludeValue[]
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call'

export interface ChatUsage {
  /** Every input token, cached ones included. */
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  prompt_tokens_details?: {
    cached_tokens?: number
    cache_write_tokens?: number
    audio_tokens?: number
  }
  completion_tokens_details?: {
    reasoning_tokens?: number
    audio_tokens?: number
    accepted_prediction_tokens?: number
    rejected_prediction_tokens?: number
  }
  /** What server tools used for this request, as billed. */
  server_tool_use?: ServerToolUsage
}

export interface ChatTokenLogprob {
  token: string
  bytes: number[] | null
  logprob: number
  top_logprobs: { token: string; bytes: number[] | null; logprob: number }[]
}

export interface ChatLogprobs {
  content: ChatTokenLogprob[] | null
  refusal: ChatTokenLogprob[] | null
}

/** The assistant message of a chat completion choice. */
export interface ChatResponseMessage {
  role: 'assistant'
  content: string | null
  refusal: string | null
  tool_calls?: ChatToolCall[]
  annotations?: Record<string, unknown>[]
  function_call?: { name: string; arguments: string } | null
  server_tool_calls?: ServerToolCall[]
  tool_search?: ToolSearchRecord
  files?: CodeExecutionFile[]
}

export interface ChatChoice {
  index: number
  message: ChatResponseMessage
  finish_reason: ChatFinishReason
  logprobs: ChatLogprobs | null
}

/** The response of a non-streaming chat completion. */
export interface ChatCompletion {
  id: string
  object: 'chat.completion'
  /** Unix time in seconds. */
  created: number
  model: string
  choices: ChatChoice[]
  usage?: ChatUsage
  system_fingerprint?: string
  service_tier?: ChatServiceTier | null
  /** The container code execution used; send its id back to reuse it. */
  container?: ContainerInfo
}

/** One streamed piece of a tool call: `index` says which call it belongs to. */
export interface ChatToolCallDelta {
  index: number
  /** Only on the call's first delta, with `type` and `function.name`. */
  id?: string
  type?: 'function'
  /** Later deltas carry only argument fragments, which concatenate to the JSON text. */
  function?: { name?: string; arguments?: string }
}

export interface ChatDelta {
  role?: 'assistant'
  content?: string | null
  refusal?: string | null
  tool_calls?: ChatToolCallDelta[]
  function_call?: { name?: string; arguments?: string }
  /** Server tool calls as they run: each first `running`, then with its result. */
  server_tool_calls?: ServerToolCallDelta[]
  tool_search?: ToolSearchRecord
  /** In the last delta: the files code execution wrote. */
  files?: CodeExecutionFile[]
}

export interface ChatChunkChoice {
  index: number
  delta: ChatDelta
  finish_reason: ChatFinishReason | null
  logprobs?: ChatLogprobs | null
}

/** One `data:` event of a streaming chat completion. */
export interface ChatCompletionChunk {
  id: string
  object: 'chat.completion.chunk'
  created: number
  model: string
  /** Empty in the final usage chunk. */
  choices: ChatChunkChoice[]
  /** Set on the final chunk when the request asked for `stream_options.include_usage`. */
  usage?: ChatUsage | null
  system_fingerprint?: string
  service_tier?: ChatServiceTier | null
  /** On the finish chunk: the container code execution used. */
  container?: ContainerInfo
}
