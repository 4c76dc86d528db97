import type { ChatCompletion, ChatResponseMessage } from '@syntic/protocol'
import type { LoopResult } from './tool-loop.js'

/** The loop's answer as one chat completion, under the id and model the client sees. */
export function completionFromLoop(
  result: LoopResult,
  id: string,
  created: number,
  model: string,
): ChatCompletion {
  const message: ChatResponseMessage = {
    role: 'assistant',
    content: result.content,
    refusal: result.refusal === '' ? null : result.refusal,
  }
  if (result.toolCalls.length > 0) message.tool_calls = result.toolCalls
  message.server_tool_calls = result.serverToolCalls
  Object.assign(message, result.fields)
  const completion: ChatCompletion = {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message, finish_reason: result.finishReason, logprobs: null }],
  }
  if (result.usage !== undefined) completion.usage = result.usage
  return completion
}
