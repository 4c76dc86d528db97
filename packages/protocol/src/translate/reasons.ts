// Why a turn ended, and what it cost, in each format's words.
import type { ChatFinishReason, ChatUsage } from '../chat/types.js'
import type { MessagesStopReason, MessagesUsage } from '../messages/types.js'
import type { ServerToolUsage } from '../server-tools/code-execution.js'

/**
 * Chat finish_reason to messages stop_reason. A turn that produced tool calls is `tool_use` unless
 * it was cut short or filtered, whatever the upstream said: some servers finish tool calls with
 * `stop`, and a stream can end with no finish reason at all.
 */
export function stopReasonFromFinish(
  finish: ChatFinishReason | null | undefined,
  hasToolCalls: boolean,
): MessagesStopReason {
  switch (finish) {
    case 'length':
      return 'max_tokens'
    case 'content_filter':
      return 'refusal'
    case 'tool_calls':
    case 'function_call':
      return 'tool_use'
    default:
      return hasToolCalls ? 'tool_use' : 'end_turn'
  }
}

/**
 * Messages stop_reason to chat finish_reason. `stop_sequence` and `pause_turn` end a turn like
 * `end_turn` does; running out of context reads as `length`; a refusal as `content_filter`.
 */
export function finishReasonFromStop(
  stop: MessagesStopReason | null | undefined,
  hasToolCalls: boolean,
): ChatFinishReason {
  switch (stop) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'refusal':
      return 'content_filter'
    case 'tool_use':
      return 'tool_calls'
    default:
      return hasToolCalls ? 'tool_calls' : 'stop'
  }
}

/** `usage.server_tool_use`, the same in both formats; only the server itself writes it. */
function serverToolUsage(value: unknown): ServerToolUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const seconds = (value as { code_execution_seconds?: unknown }).code_execution_seconds
  return typeof seconds === 'number' ? { code_execution_seconds: count(seconds) } : undefined
}

/** A token count from an upstream reply; anything but a non-negative number counts as zero. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0
}

/**
 * Chat usage to messages usage. Chat counts cached input inside prompt_tokens; messages counts
 * cache reads and writes apart from input_tokens, so they are taken out.
 */
export function usageToMessages(usage: ChatUsage | null | undefined): MessagesUsage {
  const details = usage?.prompt_tokens_details
  const read = count(details?.cached_tokens)
  const written = count(details?.cache_write_tokens)
  const result: MessagesUsage = {
    input_tokens: Math.max(0, count(usage?.prompt_tokens) - read - written),
    output_tokens: count(usage?.completion_tokens),
  }
  if (read > 0) result.cache_read_input_tokens = read
  if (written > 0) result.cache_creation_input_tokens = written
  const serverToolUse = serverToolUsage(usage?.server_tool_use)
  if (serverToolUse !== undefined) result.server_tool_use = serverToolUse
  return result
}

/** Messages usage to chat usage: cache reads and writes go back into prompt_tokens. */
export function usageToChat(usage: MessagesUsage | null | undefined): ChatUsage {
  const read = count(usage?.cache_read_input_tokens)
  const written = count(usage?.cache_creation_input_tokens)
  const prompt = count(usage?.input_tokens) + read + written
  const output = count(usage?.output_tokens)
  const result: ChatUsage = {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
  }
  if (read > 0 || written > 0) {
    result.prompt_tokens_details = { cached_tokens: read }
    if (written > 0) result.prompt_tokens_details.cache_write_tokens = written
  }
  const serverToolUse = serverToolUsage(usage?.server_tool_use)
  if (serverToolUse !== undefined) result.server_tool_use = serverToolUse
  return result
}
