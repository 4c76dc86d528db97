// A messages request as a chat completions request, for the server's internal format and for
// OpenAI-compatible upstreams. Pure and total on validated input.
import type {
  ChatAssistantMessage,
  ChatCompletionRequest,
  ChatMessage,
  ChatTextPart,
  ChatTool,
  ChatToolCall,
  ChatToolMessage,
  ChatUserContentPart,
  StandardToolEntry,
} from '../chat/types.js'
import type {
  MessagesDocumentBlockParam,
  MessagesImageBlockParam,
  MessagesMessageParam,
  MessagesRequest,
  MessagesTextBlockParam,
  MessagesTool,
  MessagesToolResultBlockParam,
} from '../messages/types.js'
import { CODE_EXECUTION_TYPE } from '../server-tools/code-execution.js'
import { TOOL_SEARCH_TYPE } from '../server-tools/types.js'
import { isStandardToolType } from '../standard-tools/types.js'
import { breakpointFrom, imageUrlFromSource, joinAssistantText } from './content.js'
import { serverBlocksToChat } from './server-records.js'
import { inputToArguments } from './tool-arguments.js'

function textPart(block: MessagesTextBlockParam): ChatTextPart {
  return { type: 'text', text: block.text, ...breakpointFrom(block.cache_control) }
}

/** Text blocks as chat content: a plain string when nothing but the text would be lost. */
function textContent(content: string | MessagesTextBlockParam[]): string | ChatTextPart[] {
  if (typeof content === 'string') return content
  const only = content[0]
  if (content.length === 1 && only !== undefined && !only.cache_control) return only.text
  return content.map(textPart)
}

function imagePart(block: MessagesImageBlockParam): ChatUserContentPart {
  const url = imageUrlFromSource(block.source)
  const cache = breakpointFrom(block.cache_control)
  if (url !== undefined) return { type: 'image_url', image_url: { url }, ...cache }
  const fileId = block.source.type === 'file' ? block.source.file_id : ''
  return { type: 'file', file: { file_id: fileId }, ...cache }
}

/**
 * A document block as chat parts. PDFs and file references become file parts and plain text a
 * text part; a PDF by URL has no chat form and becomes a text note naming the URL.
 */
function documentParts(block: MessagesDocumentBlockParam): ChatUserContentPart[] {
  const source = block.source
  const cache = breakpointFrom(block.cache_control)
  switch (source.type) {
    case 'base64': {
      const file_data = `data:${source.media_type};base64,${source.data}`
      return [
        { type: 'file', file: { file_data, filename: block.title ?? 'document.pdf' }, ...cache },
      ]
    }
    case 'text':
      return [{ type: 'text', text: source.data, ...cache }]
    case 'file':
      return [{ type: 'file', file: { file_id: source.file_id }, ...cache }]
    case 'url':
      return [{ type: 'text', text: `[Document at ${source.url}]`, ...cache }]
    case 'content':
      if (typeof source.content === 'string') return [{ type: 'text', text: source.content }]
      return source.content.map((b) => (b.type === 'text' ? textPart(b) : imagePart(b)))
  }
}

/** Parts as user content: a plain string when it is a single unmarked text part. */
function userContent(parts: ChatUserContentPart[]): string | ChatUserContentPart[] {
  const only = parts[0]
  if (parts.length === 1 && only?.type === 'text' && !only.prompt_cache_breakpoint) return only.text
  return parts
}

/**
 * A tool_result as a chat tool message. Chat tool messages hold text only, so images and
 * documents in the result go to `media`, for a user message right after the tool messages. An
 * error result with text that does not already say so is prefixed with "Error: ", since chat has
 * no is_error flag.
 */
function toolResultToChat(
  block: MessagesToolResultBlockParam,
  media: ChatUserContentPart[],
): ChatToolMessage {
  let text: string
  if (block.content === undefined || typeof block.content === 'string') {
    text = block.content ?? ''
  } else {
    const texts: string[] = []
    for (const item of block.content) {
      if (item.type === 'text') texts.push(item.text)
      else if (item.type === 'image') media.push(imagePart(item))
      else media.push(...documentParts(item))
    }
    text = texts.join('\n')
  }
  if (block.is_error && !/^\s*error/i.test(text)) text = `Error: ${text}`
  return { role: 'tool', tool_call_id: block.tool_use_id, content: text }
}

/**
 * A user turn: its tool results become tool messages first (chat needs them right after the
 * assistant's tool calls), then one user message with the rest.
 */
function userToChat(content: MessagesMessageParam['content']): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }]
  const tools: ChatToolMessage[] = []
  const media: ChatUserContentPart[] = []
  const parts: ChatUserContentPart[] = []
  for (const block of content) {
    switch (block.type) {
      case 'tool_result':
        tools.push(toolResultToChat(block, media))
        break
      case 'text':
        parts.push(textPart(block))
        break
      case 'image':
        parts.push(imagePart(block))
        break
      case 'document':
        parts.push(...documentParts(block))
        break
    }
  }
  const all = [...media, ...parts]
  const user: ChatMessage[] = all.length > 0 ? [{ role: 'user', content: userContent(all) }] : []
  return [...tools, ...user]
}

/**
 * An assistant turn: text blocks joined, tool_use blocks as tool calls, tool search blocks as
 * `server_tool_calls` and the `tool_search` record, thinking dropped.
 */
function assistantToChat(content: MessagesMessageParam['content']): ChatAssistantMessage {
  if (typeof content === 'string') return { role: 'assistant', content }
  const records = serverBlocksToChat(content)
  const calls: ChatToolCall[] = []
  for (const block of content) {
    if (block.type !== 'tool_use') continue
    calls.push({
      id: block.id,
      type: 'function',
      function: { name: block.name, arguments: inputToArguments(block.input) },
    })
  }
  const text = joinAssistantText(content)
  if (calls.length === 0) return { role: 'assistant', content: text, ...records }
  return { role: 'assistant', content: text === '' ? null : text, tool_calls: calls, ...records }
}

function messageToChat(message: MessagesMessageParam): ChatMessage[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: textContent(message.content) }]
    case 'user':
      return userToChat(message.content)
    case 'assistant':
      return [assistantToChat(message.content)]
  }
}

function isStandardEntry(tool: MessagesTool): tool is StandardToolEntry {
  return isStandardToolType(tool.type)
}

function toolToChat(tool: MessagesTool): ChatTool {
  if (isStandardEntry(tool) || tool.type === TOOL_SEARCH_TYPE || tool.type === CODE_EXECUTION_TYPE)
    return tool
  return {
    type: 'function',
    ...(tool.defer_loading === undefined ? {} : { defer_loading: tool.defer_loading }),
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.input_schema,
      ...(tool.strict === undefined ? {} : { strict: tool.strict }),
    },
  }
}

/**
 * Translates a messages request into a chat completions request.
 *
 * - `system` (and system turns) become system messages; tool_result blocks become tool messages,
 *   placed before the rest of their user turn; tool_use blocks become assistant tool_calls with
 *   the input as JSON text; images become image_url parts (base64 as `data:` URLs).
 * - max_tokens becomes `max_tokens` (the field every OpenAI-compatible server reads),
 *   stop_sequences `stop`, tool_choice any/tool/none/auto `required`/function/`none`/`auto`, and
 *   disable_parallel_tool_use `parallel_tool_calls: false`; metadata.user_id becomes `user`.
 * - A streaming request asks for usage (`stream_options.include_usage`), which messages always
 *   reports.
 * - Dropped, having no chat equivalent: top_k, thinking and thinking blocks, is_error (folded into
 *   the text), cache ttl, service_tier, container and the other server options.
 * - Standard tool entries are kept as they are; expansion is a separate step.
 * - Tool search carries over whole, for the server's loop, which runs in chat format: the search
 *   tool entry, `defer_loading`, `mcp_servers`, and each assistant turn's server_tool_use and
 *   syntic_tool_search_result blocks as `server_tool_calls` plus a `tool_search` record of what
 *   its searches loaded. `stripServerRecords` removes them before an upstream sees the request.
 */
export function messagesRequestToChat(request: MessagesRequest): ChatCompletionRequest {
  const messages: ChatMessage[] = []
  if (request.system !== undefined && request.system.length > 0) {
    messages.push({ role: 'system', content: textContent(request.system) })
  }
  for (const message of request.messages) messages.push(...messageToChat(message))
  const chat: ChatCompletionRequest = {
    model: request.model,
    messages,
    max_tokens: request.max_tokens,
  }
  if (request.stop_sequences !== undefined && request.stop_sequences.length > 0) {
    chat.stop = [...request.stop_sequences]
  }
  if (request.temperature !== undefined) chat.temperature = request.temperature
  if (request.top_p !== undefined) chat.top_p = request.top_p
  if (request.stream !== undefined) chat.stream = request.stream
  if (request.stream === true) chat.stream_options = { include_usage: true }
  if (request.tools !== undefined) chat.tools = request.tools.map(toolToChat)
  const choice = request.tool_choice
  if (choice !== undefined) {
    if (choice.type === 'tool')
      chat.tool_choice = { type: 'function', function: { name: choice.name } }
    else chat.tool_choice = choice.type === 'any' ? 'required' : choice.type
    if (choice.type !== 'none' && choice.disable_parallel_tool_use === true) {
      chat.parallel_tool_calls = false
    }
  }
  const user = request.metadata?.user_id
  if (typeof user === 'string') chat.user = user
  if (request.mcp_servers !== undefined) chat.mcp_servers = request.mcp_servers
  if (request.include !== undefined) chat.include = request.include
  return chat
}
