// Non-streaming responses, both ways. Pure and total: upstream replies arrive unchecked, so every
// field is read defensively and whatever came, a well-formed response of the other format comes
// out; malformed parts count as absent.

import { isRecord } from '../chat/request-check.js'
import type { ChatCompletion, ChatResponseMessage, ChatToolCall } from '../chat/types.js'
import type { MessagesContentBlock, MessagesResponse } from '../messages/types.js'
import { joinAssistantText, stringOr } from './content.js'
import { newId, unixSeconds } from './ids.js'
import {
  finishReasonFromStop,
  stopReasonFromFinish,
  usageToChat,
  usageToMessages,
} from './reasons.js'
import { serverBlocksToChat, serverCallsToBlocks } from './server-records.js'
import { argumentsToInput, inputToArguments } from './tool-arguments.js'

/**
 * A chat completion as a messages response, from its first choice (a messages response has one
 * answer; other choices are dropped).
 *
 * Tool searches the server ran (`server_tool_calls`) come first, each as a server_tool_use block
 * and its syntic_tool_search_result block (the `tool_search` record has no messages form: the
 * result blocks replay). Then text, then a refusal as text, then each tool call as a tool_use
 * block whose input is the parsed
 * arguments (arguments that are not a JSON object are kept under `syntic_raw_arguments`). Custom
 * tool calls carry `{ input }`. finish_reason stop/length/tool_calls/content_filter becomes
 * stop_reason end_turn/max_tokens/tool_use/refusal. Usage: cached prompt tokens move from
 * input_tokens to cache_read_input_tokens. The upstream id is kept (a new `msg_` id when it has
 * none); tool call ids pass through unchanged.
 */
export function chatResponseToMessages(response: ChatCompletion, model: string): MessagesResponse {
  const choice = Array.isArray(response?.choices) ? response.choices[0] : undefined
  const message = isRecord(choice?.message) ? choice.message : undefined
  const content: MessagesContentBlock[] = serverCallsToBlocks(message?.server_tool_calls)
  if (typeof message?.content === 'string' && message.content) {
    content.push({ type: 'text', text: message.content })
  }
  if (typeof message?.refusal === 'string' && message.refusal) {
    content.push({ type: 'text', text: message.refusal })
  }
  const calls = Array.isArray(message?.tool_calls) ? message.tool_calls : []
  for (const call of calls) {
    if (!isRecord(call)) continue
    const id = typeof call.id === 'string' && call.id ? call.id : newId('toolu_')
    if (call.type === 'custom') {
      const name = stringOr(call.custom?.name)
      content.push({ type: 'tool_use', id, name, input: { input: stringOr(call.custom?.input) } })
    } else {
      const name = stringOr(call.function?.name)
      content.push({
        type: 'tool_use',
        id,
        name,
        input: argumentsToInput(stringOr(call.function?.arguments)),
      })
    }
  }
  if (isRecord(message?.function_call)) {
    content.push({
      type: 'tool_use',
      id: newId('toolu_'),
      name: stringOr(message.function_call.name),
      input: argumentsToInput(stringOr(message.function_call.arguments)),
    })
  }
  const hasToolCalls = content.some((block) => block.type === 'tool_use')
  const result: MessagesResponse = {
    id: typeof response?.id === 'string' && response.id ? response.id : newId('msg_'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonFromFinish(choice?.finish_reason, hasToolCalls),
    stop_sequence: null,
    usage: usageToMessages(response?.usage),
  }
  if (isRecord(response?.container)) result.container = response.container
  if (Array.isArray(message?.files)) result.files = message.files
  return result
}

/**
 * A messages response as a chat completion with one choice.
 *
 * Text blocks join into `content` (null when there is only tool use); tool_use blocks become
 * function tool calls with the input as JSON text (a `syntic_raw_arguments` input gives back its
 * raw text); thinking blocks are dropped; server_tool_use and syntic_tool_search_result blocks
 * become `server_tool_calls` and the `tool_search` record of what they loaded. stop_reason end_turn/stop_sequence/pause_turn becomes
 * `stop`, max_tokens and model_context_window_exceeded `length`, tool_use `tool_calls`, refusal
 * `content_filter`. Usage: cache reads and writes count into prompt_tokens. The upstream id is
 * kept (a new `chatcmpl-` id when it has none).
 */
export function messagesResponseToChat(response: MessagesResponse, model: string): ChatCompletion {
  const blocks = (Array.isArray(response?.content) ? response.content : []).filter(isRecord)
  const calls: ChatToolCall[] = []
  for (const block of blocks) {
    if (block.type !== 'tool_use') continue
    calls.push({
      id: typeof block.id === 'string' && block.id ? block.id : newId('call_'),
      type: 'function',
      function: { name: stringOr(block.name), arguments: inputToArguments(block.input) },
    })
  }
  const text = joinAssistantText(blocks)
  const message: ChatResponseMessage = {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    refusal: null,
  }
  if (calls.length > 0) message.tool_calls = calls
  Object.assign(message, serverBlocksToChat(blocks))
  if (Array.isArray(response?.files)) message.files = response.files
  const completion: ChatCompletion = {
    id: typeof response?.id === 'string' && response.id ? response.id : newId('chatcmpl-'),
    object: 'chat.completion',
    created: unixSeconds(),
    model,
    choices: [
      {
        index: 0,
        message,
        finish_reason: finishReasonFromStop(response?.stop_reason, calls.length > 0),
        logprobs: null,
      },
    ],
    usage: usageToChat(response?.usage),
  }
  if (isRecord(response?.container)) completion.container = response.container
  return completion
}
