import type { ChatCompletionChunk, ChatFunctionToolCall, ChatToolCallDelta } from '@syntic/protocol'
import { ApiError } from '../errors.js'
import { MAX_UPSTREAM_JSON_BYTES } from '../upstream/limits.js'
import type { ChunkWriter } from './chunk-writer.js'
import { newCallId } from './ids.js'
import { isUsage, type Turn } from './turn.js'

/** A tool call of the upstream's stream, by its index there. */
interface CallState {
  id: string
  name: string | undefined
  args: string
  /** The index the client sees; undefined while undecided and for server tool calls. */
  clientIndex: number | undefined
  server: boolean
}

/**
 * Reads one streamed upstream turn, forwarding what the client may see as it arrives: text at
 * once; a tool call once its name is known, unless a server tool handles it (those are never
 * forwarded), renumbered so the client's calls count 0, 1, ... Returns the whole turn.
 */
export async function readStreamTurn(
  chunks: AsyncIterable<ChatCompletionChunk>,
  writer: ChunkWriter,
  isServerTool: (name: string) => boolean,
  separator: string,
): Promise<Turn> {
  const turn: Turn = {
    content: '',
    refusal: '',
    toolCalls: [],
    finishReason: null,
    usage: undefined,
  }
  const calls = new Map<number, CallState>()
  let clientCalls = 0
  let pendingSeparator = separator
  // The loop keeps a whole turn to send it back to the upstream: bounded like a JSON reply.
  let kept = 0
  const keep = (chars: number) => {
    kept += chars
    if (kept > MAX_UPSTREAM_JSON_BYTES) throw turnTooLarge()
  }

  const text = async (field: 'content' | 'refusal', value: string) => {
    keep(value.length)
    turn[field] += value
    const sent = pendingSeparator + value
    pendingSeparator = ''
    await writer.delta(field === 'content' ? { content: sent } : { refusal: sent })
  }

  const toolCall = async (delta: ChatToolCallDelta) => {
    let call = calls.get(delta.index)
    if (call === undefined) {
      call = { id: '', name: undefined, args: '', clientIndex: undefined, server: false }
      calls.set(delta.index, call)
    }
    if (typeof delta.id === 'string' && delta.id && call.id === '') call.id = delta.id
    const fn = typeof delta.function === 'object' && delta.function !== null ? delta.function : {}
    if (typeof fn.name === 'string' && fn.name && call.name === undefined) {
      call.name = fn.name
      call.server = isServerTool(fn.name)
    }
    const fragment = typeof fn.arguments === 'string' ? fn.arguments : ''
    keep(fragment.length)
    if (call.clientIndex !== undefined) {
      call.args += fragment
      if (fragment) {
        await writer.delta({
          tool_calls: [{ index: call.clientIndex, function: { arguments: fragment } }],
        })
      }
      return
    }
    call.args += fragment
    if (call.name !== undefined && !call.server) {
      call.clientIndex = clientCalls++
      await forwardStart(writer, call)
    }
  }

  for await (const chunk of chunks) {
    if (typeof chunk !== 'object' || chunk === null) continue
    if (isUsage(chunk.usage)) turn.usage = chunk.usage
    const choices: unknown[] = Array.isArray(chunk.choices) ? chunk.choices : []
    const choice = choices.find(
      (c): c is ChatCompletionChunk['choices'][number] =>
        typeof c === 'object' && c !== null && (c as { index?: unknown }).index === 0,
    )
    if (choice === undefined) continue
    const delta = typeof choice.delta === 'object' && choice.delta !== null ? choice.delta : {}
    if (typeof delta.content === 'string' && delta.content) await text('content', delta.content)
    if (typeof delta.refusal === 'string' && delta.refusal) await text('refusal', delta.refusal)
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls as unknown[]) {
        if (
          typeof call === 'object' &&
          call !== null &&
          typeof (call as ChatToolCallDelta).index === 'number'
        ) {
          await toolCall(call as ChatToolCallDelta)
        }
      }
    }
    if (typeof choice.finish_reason === 'string') turn.finishReason = choice.finish_reason
  }

  for (const [, call] of [...calls].sort((a, b) => a[0] - b[0])) {
    // A call whose name never came is the client's to make sense of, as on the relay path.
    if (call.name === undefined && call.clientIndex === undefined) {
      call.clientIndex = clientCalls++
      await forwardStart(writer, call)
    }
    turn.toolCalls.push(asToolCall(call))
  }
  return turn
}

async function forwardStart(writer: ChunkWriter, call: CallState): Promise<void> {
  if (call.id === '') call.id = newCallId()
  await writer.delta({
    tool_calls: [
      {
        index: call.clientIndex!,
        id: call.id,
        type: 'function',
        function: { name: call.name ?? '', arguments: call.args },
      },
    ],
  })
}

function asToolCall(call: CallState): ChatFunctionToolCall {
  return {
    id: call.id,
    type: 'function',
    function: { name: call.name ?? '', arguments: call.args },
  }
}

function turnTooLarge(): ApiError {
  return new ApiError(
    502,
    'upstream_error',
    'upstream_error',
    `the upstream model server streamed a turn of more than ${MAX_UPSTREAM_JSON_BYTES} characters of text and tool arguments; the server keeps each turn to send it back and stops there`,
  )
}
