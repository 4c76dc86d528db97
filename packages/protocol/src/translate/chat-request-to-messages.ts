// A chat completions request as a messages request, for Anthropic-compatible upstreams. Pure and
// total on validated input.
import type {
  ChatAssistantMessage,
  ChatCompletionRequest,
  ChatFunctionDefinition,
  ChatTextPart,
  ChatTool,
  ChatToolChoice,
  ChatUserContentPart,
  StandardToolEntry,
} from '../chat/types.js'
import type {
  MessagesContentBlockParam,
  MessagesCustomTool,
  MessagesInputSchema,
  MessagesMessageParam,
  MessagesRequest,
  MessagesTextBlockParam,
  MessagesTool,
  MessagesToolChoice,
} from '../messages/types.js'
import { CODE_EXECUTION_TYPE } from '../server-tools/code-execution.js'
import { TOOL_SEARCH_TYPE } from '../server-tools/types.js'
import { isStandardToolType } from '../standard-tools/types.js'
import { cacheControlFrom, imageSourceFromUrl } from './content.js'
import { serverCallsToBlocks } from './server-records.js'
import { argumentsToInput } from './tool-arguments.js'

/**
 * max_tokens for a chat request that sets none: the messages format requires it. 4096 tokens
 * fit any current model's output limit and most single answers.
 */
export const DEFAULT_MAX_TOKENS = 4096

/** Chat temperature runs 0 to 2, messages 0 to 1; values above 1 are capped. */
const MESSAGES_TEMPERATURE_MAX = 1

/** The input schema given to a chat custom (free-text) tool, whose calls carry `{ input }`. */
const CUSTOM_TOOL_SCHEMA: MessagesInputSchema = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The tool input, as free text.' } },
  required: ['input'],
}

function textBlock(part: ChatTextPart): MessagesTextBlockParam {
  return { type: 'text', text: part.text, ...cacheControlFrom(part.prompt_cache_breakpoint) }
}

/** Text content as text blocks; empty text is dropped, as the messages API refuses it. */
function textBlocks(content: string | ChatTextPart[] | null | undefined): MessagesTextBlockParam[] {
  if (content === null || content === undefined) return []
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  return content.filter((part) => part.text !== '').map(textBlock)
}

function note(text: string): MessagesTextBlockParam {
  return { type: 'text', text: `[${text}]` }
}

/**
 * A user content part as a messages block. Parts messages cannot carry (audio, files other than
 * PDFs) become a short text note, so the model knows something was there.
 */
function userPartToBlock(part: ChatUserContentPart): MessagesContentBlockParam | undefined {
  const cache = cacheControlFrom(part.prompt_cache_breakpoint)
  switch (part.type) {
    case 'text':
      return part.text === '' ? undefined : textBlock(part)
    case 'image_url':
      return { type: 'image', source: imageSourceFromUrl(part.image_url.url), ...cache }
    case 'input_audio':
      return note('audio input omitted: this model takes no audio')
    case 'file': {
      const { file_id, file_data, filename } = part.file
      if (file_id !== undefined)
        return { type: 'document', source: { type: 'file', file_id }, ...cache }
      const pdf = 'data:application/pdf;base64,'
      if (file_data?.startsWith(pdf)) {
        const data = file_data.slice(pdf.length)
        const title = filename === undefined ? {} : { title: filename }
        return {
          type: 'document',
          source: { type: 'base64', media_type: 'application/pdf', data },
          ...title,
          ...cache,
        }
      }
      const what = filename === undefined ? 'a file' : `file ${filename}`
      return note(`${what} omitted: this model takes PDF files only`)
    }
  }
}

function userBlocks(content: string | ChatUserContentPart[]): MessagesContentBlockParam[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  const blocks: MessagesContentBlockParam[] = []
  for (const part of content) {
    const block = userPartToBlock(part)
    if (block !== undefined) blocks.push(block)
  }
  return blocks
}

/** A tool message's content for a tool_result: a string unless cache markers need blocks. */
function resultContent(content: string | ChatTextPart[]): string | MessagesTextBlockParam[] {
  if (typeof content === 'string') return content
  const blocks = textBlocks(content)
  if (blocks.some((block) => block.cache_control)) return blocks
  return blocks.map((block) => block.text).join('\n')
}

/** Legacy function calls carry no id; this names the n-th one so its answer can refer to it. */
function legacyCallId(n: number): string {
  return `call_function_${n}`
}

function assistantBlocks(
  message: ChatAssistantMessage,
  legacyCalls: { count: number },
): MessagesContentBlockParam[] {
  const blocks: MessagesContentBlockParam[] = serverCallsToBlocks(message.server_tool_calls)
  const content = message.content
  if (typeof content === 'string') {
    blocks.push(...textBlocks(content))
  } else if (Array.isArray(content)) {
    for (const part of content) {
      const text = part.type === 'text' ? part.text : part.refusal
      if (text !== '') blocks.push({ type: 'text', text })
    }
  }
  for (const call of message.tool_calls ?? []) {
    const input =
      call.type === 'function'
        ? argumentsToInput(call.function.arguments)
        : { input: call.custom.input }
    const name = call.type === 'function' ? call.function.name : call.custom.name
    blocks.push({ type: 'tool_use', id: call.id, name, input })
  }
  if (message.function_call) {
    legacyCalls.count += 1
    blocks.push({
      type: 'tool_use',
      id: legacyCallId(legacyCalls.count),
      name: message.function_call.name,
      input: argumentsToInput(message.function_call.arguments),
    })
  }
  return blocks
}

/** Appends a turn, merging it into the previous one of the same role as the messages API expects. */
function append(
  messages: MessagesMessageParam[],
  role: 'user' | 'assistant',
  blocks: MessagesContentBlockParam[],
): void {
  if (blocks.length === 0) return
  const last = messages.at(-1)
  if (last !== undefined && last.role === role && Array.isArray(last.content)) {
    ;(last.content as MessagesContentBlockParam[]).push(...blocks)
    return
  }
  messages.push({ role, content: blocks })
}

/** A turn of a single unmarked text block reads as a plain string, as callers usually write it. */
function simplify(message: MessagesMessageParam): MessagesMessageParam {
  const only = message.content[0]
  if (
    message.content.length === 1 &&
    typeof only === 'object' &&
    only.type === 'text' &&
    !only.cache_control
  ) {
    return { role: message.role, content: only.text } as MessagesMessageParam
  }
  return message
}

function schemaFrom(parameters: Record<string, unknown> | undefined): MessagesInputSchema {
  if (parameters === undefined) return { type: 'object', properties: {} }
  return { ...parameters, type: 'object' }
}

function functionTool(fn: ChatFunctionDefinition): MessagesCustomTool {
  const tool: MessagesCustomTool = { name: fn.name, input_schema: schemaFrom(fn.parameters) }
  if (fn.description !== undefined) tool.description = fn.description
  if (typeof fn.strict === 'boolean') tool.strict = fn.strict
  return tool
}

function isStandardEntry(tool: ChatTool): tool is StandardToolEntry {
  return isStandardToolType(tool.type)
}

function toolToMessages(tool: ChatTool): MessagesTool {
  if (isStandardEntry(tool) || tool.type === TOOL_SEARCH_TYPE || tool.type === CODE_EXECUTION_TYPE)
    return tool
  const custom: MessagesCustomTool =
    tool.type === 'function'
      ? functionTool(tool.function)
      : { name: tool.custom.name, input_schema: CUSTOM_TOOL_SCHEMA }
  if (tool.type === 'custom' && tool.custom.description !== undefined) {
    custom.description = tool.custom.description
  }
  if (tool.defer_loading !== undefined) custom.defer_loading = tool.defer_loading
  return custom
}

function toolChoiceToMessages(choice: ChatToolChoice): MessagesToolChoice {
  if (choice === 'required') return { type: 'any' }
  if (typeof choice === 'string') return { type: choice }
  switch (choice.type) {
    case 'function':
      return { type: 'tool', name: choice.function.name }
    case 'custom':
      return { type: 'tool', name: choice.custom.name }
    case 'allowed_tools':
      return { type: choice.allowed_tools.mode === 'required' ? 'any' : 'auto' }
  }
}

function legacyChoice(
  choice: NonNullable<ChatCompletionRequest['function_call']>,
): MessagesToolChoice {
  if (typeof choice === 'string') return { type: choice }
  return { type: 'tool', name: choice.name }
}

/**
 * Translates a chat completions request into a messages request.
 *
 * - System and developer messages, wherever they stand, are gathered in order into `system`
 *   (the messages format keeps system text apart from the turns).
 * - Assistant tool_calls become tool_use blocks (arguments parsed; text that is not a JSON object
 *   is kept under `syntic_raw_arguments`); consecutive tool messages become one user turn of
 *   tool_result blocks, merged with a user message that follows; consecutive turns of one role
 *   merge. Legacy `functions`/`function_call` become tools and tool_use blocks with made-up ids.
 * - max_tokens is max_completion_tokens, else max_tokens, else DEFAULT_MAX_TOKENS (4096); `stop`
 *   becomes stop_sequences without whitespace-only entries (which the messages API refuses);
 *   temperature is capped at 1; tool_choice required/function/none/auto becomes
 *   any/tool/none/auto and parallel_tool_calls false `disable_parallel_tool_use`; `user` (or
 *   safety_identifier) becomes metadata.user_id.
 * - Custom (free-text) tools become tools taking `{ input: string }`.
 * - Not representable, left to the caller: `n` > 1 (one answer only), logprobs, penalties, seed,
 *   response_format and the other options without a messages field, which are dropped. Audio
 *   parts and non-PDF files become short text notes.
 * - Standard tool entries are kept as they are; expansion is a separate step.
 * - Tool search carries over: the search tool entry, `defer_loading`, `mcp_servers`, and each
 *   assistant message's `server_tool_calls` as server_tool_use and syntic_tool_search_result
 *   blocks before its text. Its `tool_search` record has no messages form and is dropped: a
 *   messages conversation replays the result blocks themselves.
 */
export function chatRequestToMessages(request: ChatCompletionRequest): MessagesRequest {
  const system: MessagesTextBlockParam[] = []
  const turns: MessagesMessageParam[] = []
  const legacyCalls = { count: 0 }
  let legacyAnswers = 0
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textBlocks(message.content))
        break
      case 'user':
        append(turns, 'user', userBlocks(message.content))
        break
      case 'assistant':
        append(turns, 'assistant', assistantBlocks(message, legacyCalls))
        break
      case 'tool': {
        append(turns, 'user', [
          {
            type: 'tool_result',
            tool_use_id: message.tool_call_id,
            content: resultContent(message.content),
          },
        ])
        break
      }
      case 'function':
        legacyAnswers += 1
        append(turns, 'user', [
          {
            type: 'tool_result',
            tool_use_id: legacyCallId(legacyAnswers),
            content: message.content ?? '',
          },
        ])
        break
    }
  }
  const result: MessagesRequest = {
    model: request.model,
    messages: turns.map(simplify),
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? DEFAULT_MAX_TOKENS,
  }
  if (system.length > 0) {
    const only = system[0]!
    result.system = system.length === 1 && !only.cache_control ? only.text : system
  }
  if (request.stop !== undefined && request.stop !== null) {
    const stops = (typeof request.stop === 'string' ? [request.stop] : request.stop).filter(
      (stop) => stop.trim() !== '',
    )
    if (stops.length > 0) result.stop_sequences = stops
  }
  if (typeof request.temperature === 'number') {
    result.temperature = Math.min(request.temperature, MESSAGES_TEMPERATURE_MAX)
  }
  if (typeof request.top_p === 'number') result.top_p = request.top_p
  if (typeof request.stream === 'boolean') result.stream = request.stream
  const tools = [
    ...(request.tools ?? []).map(toolToMessages),
    ...(request.functions ?? []).map(functionTool),
  ]
  if (tools.length > 0) result.tools = tools
  const choice =
    request.tool_choice !== undefined
      ? toolChoiceToMessages(request.tool_choice)
      : request.function_call !== undefined
        ? legacyChoice(request.function_call)
        : undefined
  if (request.parallel_tool_calls === false && tools.length > 0 && choice?.type !== 'none') {
    result.tool_choice = { ...(choice ?? { type: 'auto' }), disable_parallel_tool_use: true }
  } else if (choice !== undefined) {
    result.tool_choice = choice
  }
  const user = request.user ?? request.safety_identifier
  if (typeof user === 'string') result.metadata = { user_id: user }
  if (request.mcp_servers !== undefined) result.mcp_servers = request.mcp_servers
  if (request.include !== undefined) result.include = request.include
  return result
}
