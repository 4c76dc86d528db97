// A streaming chat completion as messages stream events, as the Anthropic SDK's MessageStream
// reads them: message_start first, then numbered content blocks (start, deltas, stop) one after
// another, then message_delta with the stop reason and usage, then message_stop.
import { isRecord } from '../chat/request-check.js'
import type {
  ChatChunkChoice,
  ChatCompletionChunk,
  ChatFinishReason,
  ChatToolCallDelta,
  ChatUsage,
} from '../chat/types.js'
import type { MessagesContentBlock, MessagesStreamEvent } from '../messages/types.js'
import {
  CODE_EXECUTION_TYPE,
  type CodeExecutionFile,
  type ContainerInfo,
} from '../server-tools/code-execution.js'
import { TOOL_SEARCH_TYPE } from '../server-tools/types.js'
import { newId } from './ids.js'
import { stopReasonFromFinish, usageToMessages } from './reasons.js'
import { serverCallsToBlocks } from './server-records.js'

/** A tool call of the chat stream, by its `index` there. */
interface ToolCallState {
  id: string | undefined
  name: string | undefined
  /** Its content block index, once the block has started. */
  block: number | undefined
  /** Argument fragments that came before the name, held until the block can start. */
  held: string
}

/** A server tool call of the chat stream, by its `index` in `server_tool_calls`. */
interface ServerCallState {
  id: string
  /** Whether its server_tool_use block was sent, and its result block. */
  used: boolean
  answered: boolean
}

/** The legacy `function_call` delta, streamed as one more tool call. */
const LEGACY_CALL_INDEX = -1

/**
 * Translates one streaming chat completion (its first choice) into messages stream events. Feed
 * every chunk to `push` and call `finish` when the upstream stream ends; each returns the events
 * to send, in order. Never throws: upstream chunks arrive unchecked, and malformed parts of a
 * chunk are skipped.
 *
 * - Text (and refusal text) opens a text block; each tool call opens a tool_use block, with its
 *   argument fragments as input_json_delta events that concatenate to the input JSON. A block
 *   closes when the next one opens or the choice finishes.
 * - A tool call whose name has not arrived yet is held until it does (its fragments too); one
 *   still nameless at the end starts with an empty name rather than being lost.
 * - Upstreams that interleave fragments of several tool calls (the official APIs do not) get them
 *   sent by block index after that block closed; the SDK still assembles each input correctly.
 * - Each tool search the server runs (`delta.server_tool_calls`) becomes two complete blocks, each
 *   started and stopped at once: a server_tool_use block when the search starts (`running`), a
 *   syntic_tool_search_result block when its result comes. They close the block open before them.
 *   Code execution runs do the same with a syntic_code_execution_result block.
 * - The chunk's `container` and the delta's `files` (code execution) go into the message_delta's
 *   delta, and `usage.server_tool_use` into its usage.
 * - The stop reason comes from finish_reason (tool calls imply tool_use); a stream that ends
 *   without one ends as end_turn, or tool_use when it made tool calls. Usage arrives in the last
 *   chunks of a chat stream, so message_start reports zero tokens and message_delta the totals.
 */
export class ChatToMessagesStream {
  readonly #model: string
  #id: string | undefined
  #started = false
  #finished = false
  #nextBlock = 0
  #open: number | undefined
  #openIsText = false
  readonly #calls = new Map<number, ToolCallState>()
  readonly #serverCalls = new Map<number, ServerCallState>()
  #finishReason: ChatFinishReason | null = null
  #usage: ChatUsage | undefined
  #container: ContainerInfo | undefined
  #files: CodeExecutionFile[] | undefined

  /** `id` is the message id to report; by default the upstream chunk id. */
  constructor(model: string, id?: string) {
    this.#model = model
    this.#id = id
  }

  push(chunk: ChatCompletionChunk): MessagesStreamEvent[] {
    if (this.#finished || !isRecord(chunk)) return []
    const events: MessagesStreamEvent[] = []
    this.#start(typeof chunk.id === 'string' ? chunk.id : undefined, events)
    if (isRecord(chunk.usage)) this.#usage = chunk.usage as ChatUsage
    if (isRecord(chunk.container)) this.#container = chunk.container as unknown as ContainerInfo
    const choices: unknown[] = Array.isArray(chunk.choices) ? chunk.choices : []
    const choice = choices.find((c: unknown): c is ChatChunkChoice => isRecord(c) && c.index === 0)
    if (choice === undefined) return events
    const delta = isRecord(choice.delta) ? choice.delta : {}
    if (Array.isArray(delta.files)) this.#files = delta.files as CodeExecutionFile[]
    if (typeof delta.content === 'string' && delta.content) this.#text(delta.content, events)
    if (typeof delta.refusal === 'string' && delta.refusal) this.#text(delta.refusal, events)
    const calls: unknown[] = Array.isArray(delta.tool_calls) ? delta.tool_calls : []
    for (const call of calls) {
      if (isRecord(call)) this.#toolCall(call as unknown as ChatToolCallDelta, events)
    }
    if (isRecord(delta.function_call)) {
      this.#toolCall({ index: LEGACY_CALL_INDEX, function: delta.function_call }, events)
    }
    const serverCalls: unknown[] = Array.isArray(delta.server_tool_calls)
      ? delta.server_tool_calls
      : []
    for (const call of serverCalls) {
      if (isRecord(call)) this.#serverCall(call, events)
    }
    if (typeof choice.finish_reason === 'string') {
      this.#finishReason = choice.finish_reason
      this.#close(events)
    }
    return events
  }

  finish(): MessagesStreamEvent[] {
    if (this.#finished) return []
    const events: MessagesStreamEvent[] = []
    this.#start(undefined, events)
    for (const call of this.#calls.values()) {
      if (call.block === undefined) this.#startToolUse(call, '', events)
    }
    this.#close(events)
    this.#finished = true
    events.push(
      {
        type: 'message_delta',
        delta: {
          stop_reason: stopReasonFromFinish(this.#finishReason, this.#calls.size > 0),
          stop_sequence: null,
          ...(this.#container ? { container: this.#container } : {}),
          ...(this.#files ? { files: this.#files } : {}),
        },
        usage: usageToMessages(this.#usage),
      },
      { type: 'message_stop' },
    )
    return events
  }

  #start(chunkId: string | undefined, events: MessagesStreamEvent[]): void {
    if (this.#started) return
    this.#started = true
    this.#id ??= chunkId || newId('msg_')
    events.push({
      type: 'message_start',
      message: {
        id: this.#id,
        type: 'message',
        role: 'assistant',
        model: this.#model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    })
  }

  #close(events: MessagesStreamEvent[]): void {
    if (this.#open === undefined) return
    events.push({ type: 'content_block_stop', index: this.#open })
    this.#open = undefined
  }

  #text(text: string, events: MessagesStreamEvent[]): void {
    if (this.#open === undefined || !this.#openIsText) {
      this.#close(events)
      this.#open = this.#nextBlock++
      this.#openIsText = true
      events.push({
        type: 'content_block_start',
        index: this.#open,
        content_block: { type: 'text', text: '' },
      })
    }
    events.push({
      type: 'content_block_delta',
      index: this.#open,
      delta: { type: 'text_delta', text },
    })
  }

  #toolCall(delta: ChatToolCallDelta, events: MessagesStreamEvent[]): void {
    let call = this.#calls.get(delta.index)
    if (call === undefined) {
      call = { id: undefined, name: undefined, block: undefined, held: '' }
      this.#calls.set(delta.index, call)
    }
    if (typeof delta.id === 'string' && delta.id) call.id ??= delta.id
    const fn: Record<string, unknown> = isRecord(delta.function) ? delta.function : {}
    if (typeof fn.name === 'string' && fn.name) call.name ??= fn.name
    const fragment = typeof fn.arguments === 'string' ? fn.arguments : ''
    if (call.block !== undefined) {
      this.#arguments(call.block, fragment, events)
    } else if (call.name === undefined) {
      call.held += fragment
    } else {
      this.#startToolUse(call, fragment, events)
    }
  }

  /**
   * A search's blocks: the server_tool_use block once its start (or, if that never came, its
   * result) arrives, then the result block once. Deltas of other server tools are skipped.
   */
  #serverCall(delta: Record<string, unknown>, events: MessagesStreamEvent[]): void {
    if (typeof delta.index !== 'number') return
    if (delta.type === CODE_EXECUTION_TYPE) {
      this.#run(delta, events)
      return
    }
    if (delta.type !== TOOL_SEARCH_TYPE) return
    let call = this.#serverCalls.get(delta.index)
    if (call === undefined) {
      const id = typeof delta.id === 'string' && delta.id ? delta.id : newId('srv_')
      call = { id, used: false, answered: false }
      this.#serverCalls.set(delta.index, call)
    }
    if (!call.used) {
      call.used = true
      const query = typeof delta.query === 'string' ? delta.query : ''
      this.#wholeBlock(
        { type: 'server_tool_use', id: call.id, name: TOOL_SEARCH_TYPE, input: { query } },
        events,
      )
    }
    if ((delta.status === 'ok' || delta.status === 'error') && !call.answered) {
      call.answered = true
      const loaded = Array.isArray(delta.loaded)
        ? delta.loaded.filter((name): name is string => typeof name === 'string')
        : []
      this.#wholeBlock(
        { type: 'syntic_tool_search_result', tool_use_id: call.id, loaded, status: delta.status },
        events,
      )
    }
  }

  /** A run's blocks, as a search's: the server_tool_use block, then its result block once. */
  #run(delta: Record<string, unknown>, events: MessagesStreamEvent[]): void {
    const index = delta.index as number
    let call = this.#serverCalls.get(index)
    if (call === undefined) {
      const id = typeof delta.id === 'string' && delta.id ? delta.id : newId('srv_')
      call = { id, used: false, answered: false }
      this.#serverCalls.set(index, call)
    }
    const [use, result] = serverCallsToBlocks([{ ...delta, id: call.id }])
    if (!call.used) {
      call.used = true
      this.#wholeBlock(use!, events)
    }
    if (delta.status !== 'running' && !call.answered) {
      call.answered = true
      this.#wholeBlock(result!, events)
    }
  }

  /** A block sent complete: started with all its content, then stopped. */
  #wholeBlock(block: MessagesContentBlock, events: MessagesStreamEvent[]): void {
    this.#close(events)
    const index = this.#nextBlock++
    events.push(
      { type: 'content_block_start', index, content_block: block },
      { type: 'content_block_stop', index },
    )
  }

  #startToolUse(call: ToolCallState, fragment: string, events: MessagesStreamEvent[]): void {
    this.#close(events)
    const block = this.#nextBlock++
    call.block = block
    this.#open = block
    this.#openIsText = false
    events.push({
      type: 'content_block_start',
      index: block,
      content_block: {
        type: 'tool_use',
        id: call.id ?? newId('toolu_'),
        name: call.name ?? '',
        input: {},
      },
    })
    this.#arguments(block, call.held + fragment, events)
    call.held = ''
  }

  #arguments(block: number, fragment: string, events: MessagesStreamEvent[]): void {
    if (fragment === '') return
    events.push({
      type: 'content_block_delta',
      index: block,
      delta: { type: 'input_json_delta', partial_json: fragment },
    })
  }
}
