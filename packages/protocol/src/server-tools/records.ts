// Removing what only Syntic understands before a request goes upstream: the server tool records
// on assistant messages (tool search, code execution, `files`), `mcp_servers`, `include` and
// `defer_loading`. Upstreams reject unknown fields.
import type { ChatCompletionRequest, ChatMessage, ChatTool } from '../chat/types.js'
import type {
  MessagesContentBlockParam,
  MessagesMessageParam,
  MessagesRequest,
  MessagesTool,
} from '../messages/types.js'
import { withoutDeferLoading } from './plan.js'

function hasDeferLoading(tools: readonly object[] | undefined): boolean {
  return tools?.some((tool) => 'defer_loading' in tool) ?? false
}

function hasChatRecords(message: ChatMessage): boolean {
  return (
    message.role === 'assistant' &&
    ('server_tool_calls' in message || 'tool_search' in message || 'files' in message)
  )
}

/**
 * The chat request without `server_tool_calls`, `tool_search` and `files` on its assistant
 * messages, without `mcp_servers` and `include`, and its tools without `defer_loading`. The search tool entry stays: the
 * loop replaces it (see planToolSearch), and a request without it has no other record to drop.
 * Returns the request itself when there is nothing to remove.
 */
export function stripServerRecords(request: ChatCompletionRequest): ChatCompletionRequest {
  const records = request.messages.some(hasChatRecords)
  const deferLoading = hasDeferLoading(request.tools)
  if (!records && !deferLoading && !('mcp_servers' in request) && !('include' in request)) {
    return request
  }
  const { mcp_servers: _, include: _include, ...stripped } = request
  if (records) {
    stripped.messages = request.messages.map((message): ChatMessage => {
      if (!hasChatRecords(message)) return message
      const {
        server_tool_calls: _calls,
        tool_search: _record,
        files: _files,
        ...rest
      } = message as ChatMessage & {
        server_tool_calls?: unknown
        tool_search?: unknown
        files?: unknown
      }
      return rest as ChatMessage
    })
  }
  if (deferLoading)
    stripped.tools = request.tools!.map((tool: ChatTool) => withoutDeferLoading(tool))
  return stripped
}

function isServerBlock(block: MessagesContentBlockParam): boolean {
  return (
    block.type === 'server_tool_use' ||
    block.type === 'syntic_tool_search_result' ||
    block.type === 'syntic_code_execution_result'
  )
}

function hasMessagesRecords(message: MessagesMessageParam): boolean {
  return (
    message.role === 'assistant' &&
    Array.isArray(message.content) &&
    message.content.some(isServerBlock)
  )
}

/**
 * Stands in for an assistant turn that held nothing but searches, when the turn cannot be dropped
 * (it was the whole conversation): the messages API refuses empty content.
 */
const SEARCHED_NOTE: MessagesContentBlockParam = { type: 'text', text: '[searched for tools]' }

/**
 * The messages request without the server_tool_use, syntic_tool_search_result and
 * syntic_code_execution_result blocks of its assistant turns, without `mcp_servers` and
 * `include`, and its tools without `defer_loading`. Returns the
 * request itself when there is nothing to remove.
 *
 * An assistant turn left empty is dropped: it held no tool_use, so no tool_result depends on it,
 * and the user turns it separated read as one (the messages API joins consecutive turns of a
 * role). Only when it was the sole message does it keep a short text block instead, since a
 * request needs a message and the API refuses empty content.
 */
export function stripMessagesServerRecords(request: MessagesRequest): MessagesRequest {
  const records = request.messages.some(hasMessagesRecords)
  const deferLoading = hasDeferLoading(request.tools)
  if (!records && !deferLoading && !('mcp_servers' in request) && !('include' in request)) {
    return request
  }
  const { mcp_servers: _, include: _include, ...stripped } = request
  if (records) {
    const messages: MessagesMessageParam[] = []
    for (const message of request.messages) {
      if (!hasMessagesRecords(message)) {
        messages.push(message)
        continue
      }
      const content = (message.content as MessagesContentBlockParam[]).filter(
        (block) => !isServerBlock(block),
      )
      if (content.length > 0) messages.push({ role: 'assistant', content })
    }
    stripped.messages =
      messages.length > 0 ? messages : [{ role: 'assistant', content: [SEARCHED_NOTE] }]
  }
  if (deferLoading) {
    stripped.tools = request.tools!.map((tool): MessagesTool => {
      if (!('defer_loading' in tool)) return tool
      const { defer_loading: _defer, ...rest } = tool
      return rest
    })
  }
  return stripped
}
