import type { ToolHandler } from './handler.js'
import { failure, type ToolResult } from './result.js'

/** A tool call as it appears in an assistant message's `tool_calls` (chat completions shape). */
export interface ChatToolCall {
  id: string
  type?: 'function'
  function: { name: string; arguments: string }
}

/** The message that carries a tool's result back to the model (chat completions shape). */
export interface ChatToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string
}

/** A `tool_use` content block (messages shape). */
export interface ToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
}

/** The `tool_result` block that answers a `tool_use` block (messages shape). */
export interface ToolResultBlock {
  type: 'tool_result'
  tool_use_id: string
  content: string
  is_error?: boolean
}

function byName(handlers: readonly ToolHandler[]): Map<string, ToolHandler> {
  return new Map(handlers.map((h) => [h.name, h]))
}

async function dispatch(
  handlers: Map<string, ToolHandler>,
  name: string,
  input: () => unknown,
): Promise<ToolResult> {
  const handler = handlers.get(name)
  if (!handler) {
    return failure(
      `unknown tool "${name}"; the available tools are ${[...handlers.keys()].join(', ')}`,
    )
  }
  let parsed: unknown
  try {
    parsed = input()
  } catch (error) {
    return failure(`the tool arguments are not valid JSON (${(error as Error).message})`)
  }
  return handler.run(parsed)
}

/**
 * Runs an assistant message's tool calls through the matching handlers, one after another (a
 * shell call may depend on the edit before it), and returns the tool messages to send back.
 */
export async function runToolCalls(
  toolCalls: readonly ChatToolCall[] | undefined,
  handlers: readonly ToolHandler[],
): Promise<ChatToolMessage[]> {
  const table = byName(handlers)
  const messages: ChatToolMessage[] = []
  for (const call of toolCalls ?? []) {
    const result = await dispatch(table, call.function.name, () =>
      call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments),
    )
    messages.push({ role: 'tool', tool_call_id: call.id, content: result.output })
  }
  return messages
}

/** The same for a messages-shape assistant turn: answers each `tool_use` block in order. */
export async function runToolUses(
  content: readonly { type: string }[],
  handlers: readonly ToolHandler[],
): Promise<ToolResultBlock[]> {
  const table = byName(handlers)
  const results: ToolResultBlock[] = []
  for (const block of content) {
    if (block.type !== 'tool_use') continue
    const use = block as ToolUseBlock
    const result = await dispatch(table, use.name, () => use.input)
    results.push({
      type: 'tool_result',
      tool_use_id: use.id,
      content: result.output,
      ...(result.is_error ? { is_error: true } : {}),
    })
  }
  return results
}
