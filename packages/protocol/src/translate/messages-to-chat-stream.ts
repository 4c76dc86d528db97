// A messages event stream as chat completion chunks, as the OpenAI SDK's ChatCompletionStream
// reads them: a first chunk with the assistant role, content and tool call deltas, a final chunk
// with the finish reason, then the usage chunk.

import { isRecord } from '../chat/request-check.js'
import type { ChatChunkChoice, ChatCompletionChunk, ChatDelta } from '../chat/types.js'
import type { MessagesStopReason, MessagesStreamEvent, MessagesUsage } from '../messages/types.js'
import { stringOr } from './content.js'
import { newId, unixSeconds } from './ids.js'
import { finishReasonFromStop, usageToChat } from './reasons.js'
import { inputToArguments } from './tool-arguments.js'

const COUNTED = [
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
] as const

export interface MessagesToChatStreamOptions {
  /**
   * Whether to end with a usage chunk (`choices: []`), as chat streams do when the request set
   * `stream_options.include_usage`. Default true; pass false for clients that did not ask, since
   * some read `choices[0]` of every chunk.
   */
  includeUsage?: boolean
}

/**
 * Translates one messages event stream into chat completion chunks. Feed every event to `push`
 * and call `finish` when the upstream stream ends; each returns the chunks to send, in order.
 * Never throws: upstream events arrive unchecked, and malformed parts of an event are skipped.
 *
 * - The first chunk carries `role: 'assistant'`; text deltas become `content`; each tool_use
 *   block becomes a tool call numbered from 0, its first delta carrying id, type 'function' and
 *   name, later ones only argument fragments (the input_json_delta text).
 * - message_stop (or `finish`, for a stream that ended early) yields the finish chunk, its reason
 *   from stop_reason (tool_use blocks imply tool_calls), then the usage chunk.
 * - Thinking, ping and error events yield nothing: chat has no thinking field, and errors are for
 *   the caller to report in its own envelope.
 */
export class MessagesToChatStream {
  readonly #model: string
  readonly #includeUsage: boolean
  #id: string | undefined
  readonly #created = unixSeconds()
  #started = false
  #finished = false
  /** Chat tool call index of each tool_use block, by block index. */
  readonly #calls = new Map<number, number>()
  #stopReason: MessagesStopReason | null = null
  readonly #usage: MessagesUsage = { input_tokens: 0, output_tokens: 0 }

  /** `id` is the completion id to report; by default the upstream message id. */
  constructor(model: string, id?: string, options: MessagesToChatStreamOptions = {}) {
    this.#model = model
    this.#id = id
    this.#includeUsage = options.includeUsage ?? true
  }

  push(event: MessagesStreamEvent): ChatCompletionChunk[] {
    if (this.#finished || !isRecord(event)) return []
    switch (event.type) {
      case 'message_start': {
        const message = isRecord(event.message) ? event.message : undefined
        const chunks = this.#start(typeof message?.id === 'string' ? message.id : undefined)
        this.#count(message?.usage)
        return chunks
      }
      case 'content_block_start': {
        const chunks = this.#start(undefined)
        const block = isRecord(event.content_block) ? event.content_block : undefined
        if (block?.type === 'text' && typeof block.text === 'string' && block.text) {
          chunks.push(this.#chunk({ content: block.text }))
        }
        if (block?.type === 'tool_use') {
          const index = this.#calls.size
          this.#calls.set(event.index, index)
          const prefilled = isRecord(block.input) && Object.keys(block.input).length > 0
          const call = {
            index,
            id: typeof block.id === 'string' && block.id ? block.id : newId('call_'),
            type: 'function' as const,
            function: {
              name: stringOr(block.name),
              arguments: prefilled ? inputToArguments(block.input) : '',
            },
          }
          chunks.push(this.#chunk({ tool_calls: [call] }))
        }
        return chunks
      }
      case 'content_block_delta': {
        const chunks = this.#start(undefined)
        const delta = isRecord(event.delta) ? event.delta : undefined
        if (delta?.type === 'text_delta' && typeof delta.text === 'string' && delta.text) {
          chunks.push(this.#chunk({ content: delta.text }))
        }
        const index = this.#calls.get(event.index)
        const json = delta?.type === 'input_json_delta' ? delta.partial_json : undefined
        if (typeof json === 'string' && json && index !== undefined) {
          chunks.push(this.#chunk({ tool_calls: [{ index, function: { arguments: json } }] }))
        }
        return chunks
      }
      case 'message_delta': {
        const delta = isRecord(event.delta) ? event.delta : undefined
        if (typeof delta?.stop_reason === 'string') this.#stopReason = delta.stop_reason
        this.#count(event.usage)
        return []
      }
      case 'message_stop':
        return this.finish()
      default:
        return []
    }
  }

  finish(): ChatCompletionChunk[] {
    if (this.#finished) return []
    const chunks = this.#start(undefined)
    this.#finished = true
    const reason = finishReasonFromStop(this.#stopReason, this.#calls.size > 0)
    chunks.push(this.#chunk({}, reason))
    if (this.#includeUsage) {
      chunks.push({ ...this.#base(), choices: [], usage: usageToChat(this.#usage) })
    }
    return chunks
  }

  /** Takes the counts an event reports; messages usage totals are cumulative, so they replace. */
  #count(usage: unknown): void {
    if (!isRecord(usage)) return
    for (const key of COUNTED) {
      const value = usage[key]
      if (typeof value === 'number' && Number.isFinite(value)) this.#usage[key] = value
    }
  }

  #start(messageId: string | undefined): ChatCompletionChunk[] {
    if (this.#started) return []
    this.#started = true
    this.#id ??= messageId || newId('chatcmpl-')
    return [this.#chunk({ role: 'assistant', content: '' })]
  }

  #base(): Omit<ChatCompletionChunk, 'choices'> {
    return {
      id: this.#id!,
      object: 'chat.completion.chunk',
      created: this.#created,
      model: this.#model,
    }
  }

  #chunk(
    delta: ChatDelta,
    finishReason: ChatChunkChoice['finish_reason'] = null,
  ): ChatCompletionChunk {
    return {
      ...this.#base(),
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    }
  }
}
