import type { ChatCompletion, ChatFinishReason, ChatToolCall, ChatUsage } from '@syntic/protocol'

/** What one upstream call answered, in the chat format. */
export interface Turn {
  content: string
  refusal: string
  /** Every tool call of the turn, server and client, in the model's order. */
  toolCalls: ChatToolCall[]
  finishReason: ChatFinishReason | null
  usage: ChatUsage | undefined
}

/** A non-streamed upstream answer as a turn (its first choice). */
export function turnFromCompletion(completion: ChatCompletion): Turn {
  const choice = completion.choices[0]!
  const message = choice.message
  return {
    content: typeof message.content === 'string' ? message.content : '',
    refusal: typeof message.refusal === 'string' ? message.refusal : '',
    toolCalls: Array.isArray(message.tool_calls) ? message.tool_calls.filter(isToolCall) : [],
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    usage: isUsage(completion.usage) ? completion.usage : undefined,
  }
}

function isToolCall(call: unknown): call is ChatToolCall {
  if (typeof call !== 'object' || call === null) return false
  const { type, function: fn, custom } = call as Record<string, unknown>
  if (type === 'function') return isNamed(fn, 'arguments')
  if (type === 'custom') return isNamed(custom, 'input')
  return false
}

function isNamed(value: unknown, text: string): boolean {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  return typeof record.name === 'string' && typeof record[text] === 'string'
}

export function isUsage(value: unknown): value is ChatUsage {
  if (typeof value !== 'object' || value === null) return false
  const { prompt_tokens, completion_tokens } = value as Record<string, unknown>
  return typeof prompt_tokens === 'number' && typeof completion_tokens === 'number'
}

/** Usage summed over turns; details are summed where every turn that reports them does. */
export function addUsage(
  sum: ChatUsage | undefined,
  usage: ChatUsage | undefined,
): ChatUsage | undefined {
  if (usage === undefined) return sum
  if (sum === undefined) return structuredClone(usage)
  const total: ChatUsage = {
    prompt_tokens: sum.prompt_tokens + usage.prompt_tokens,
    completion_tokens: sum.completion_tokens + usage.completion_tokens,
    total_tokens:
      (sum.total_tokens ?? 0) +
      (usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens),
  }
  const cached = addCount(
    sum.prompt_tokens_details?.cached_tokens,
    usage.prompt_tokens_details?.cached_tokens,
  )
  if (cached !== undefined) total.prompt_tokens_details = { cached_tokens: cached }
  const reasoning = addCount(
    sum.completion_tokens_details?.reasoning_tokens,
    usage.completion_tokens_details?.reasoning_tokens,
  )
  if (reasoning !== undefined) total.completion_tokens_details = { reasoning_tokens: reasoning }
  return total
}

function addCount(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined && b === undefined) return undefined
  return (a ?? 0) + (b ?? 0)
}
