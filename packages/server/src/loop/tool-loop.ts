import type {
  ChatCompletionRequest,
  ChatFinishReason,
  ChatFunctionToolCall,
  ChatMessage,
  ChatTool,
  ChatToolCall,
  ChatToolChoice,
  ChatUsage,
  ServerToolCall,
  ServerToolCallDelta,
} from '@syntic/protocol'
import type { ChatUpstream } from './chat-upstream.js'
import type { ChunkWriter } from './chunk-writer.js'
import { newCallId, newServerToolCallId } from './ids.js'
import { MAX_SERVER_TOOL_ROUNDS, RETIRED_TOOL_NOTE, ROUND_CAP_NOTE } from './limits.js'
import type { ServerTool, ServerToolMessageFields } from './server-tool.js'
import { readStreamTurn } from './stream-turn.js'
import { ToolList, toolName } from './tool-list.js'
import { addUsage, type Turn, turnFromCompletion } from './turn.js'

export interface ToolLoopOptions {
  /** The request as the upstream may see it: records stripped, model mapped; tools set per turn. */
  request: ChatCompletionRequest
  /** The request's own tools that the model sees from the start. */
  baseTools: readonly ChatTool[]
  serverTools: readonly ServerTool[]
  upstream: ChatUpstream
  /** Aborted when the client goes away: the loop and its upstream call stop. */
  signal: AbortSignal
  /** Counts each server tool call by type and status. */
  onServerToolCall?: (type: string, status: string) => void
}

/** The assistant message the loop ends with, in the chat format. */
export interface LoopResult {
  /** The text of every turn, in order. */
  content: string
  refusal: string
  /** The client's tool calls of the last turn. */
  toolCalls: ChatToolCall[]
  finishReason: ChatFinishReason
  /** Summed over every upstream call. */
  usage: ChatUsage | undefined
  serverToolCalls: ServerToolCall[]
  fields: ServerToolMessageFields
}

/** What a streaming client sees of server tool calls as they run. */
type Announce = (delta: ServerToolCallDelta) => Promise<void>

// Turns of the loop are joined by this when both have text, as a reader would expect.
const TURN_SEPARATOR = '\n\n'

/**
 * The server tool loop: call the upstream; while the model calls only server tools, run them,
 * give it their results and call again; end with its answer or with the client's tool calls.
 * Each server tool runs in at most its own number of rounds (MAX_SERVER_TOOL_ROUNDS unless it
 * says otherwise) or until it says it is used up: then it is taken away and the model is told to
 * answer with what it has. A turn that calls only tools taken away ends the loop.
 */
export class ToolLoop {
  private readonly list: ToolList
  private readonly conversation: ChatMessage[]
  private readonly records: ServerToolCall[] = []
  private rounds = 0
  private readonly toolRounds = new Map<ServerTool, number>()
  private readonly retired = new Set<ServerTool>()
  private usage: ChatUsage | undefined
  private content = ''
  private refusal = ''

  constructor(private readonly options: ToolLoopOptions) {
    const { serverTools } = options
    this.list = new ToolList(
      options.baseTools,
      serverTools.flatMap((tool) => tool.definitions),
    )
    for (const tool of serverTools) this.list.load(tool.initial)
    this.conversation = [...options.request.messages]
  }

  /** Runs the loop with non-streamed upstream calls. */
  complete(): Promise<LoopResult> {
    return this.run(
      async (request) =>
        turnFromCompletion(await this.options.upstream.complete(request, this.options.signal)),
      async () => {},
    )
  }

  /** Runs the loop with streamed upstream calls, writing what the client may see as it comes. */
  stream(writer: ChunkWriter): Promise<LoopResult> {
    return this.run(
      async (request) => {
        const chunks = await this.options.upstream.stream(
          { ...request, stream: true, stream_options: { include_usage: true } },
          this.options.signal,
        )
        const separator = this.content === '' ? '' : TURN_SEPARATOR
        return readStreamTurn(chunks, writer, (name) => this.isServerTool(name), separator)
      },
      (delta) => writer.delta({ server_tool_calls: [delta] }),
    )
  }

  private async run(
    takeTurn: (request: ChatCompletionRequest) => Promise<Turn>,
    announce: Announce,
  ): Promise<LoopResult> {
    for (;;) {
      this.options.signal.throwIfAborted()
      const turn = await takeTurn(this.nextRequest())
      this.usage = addUsage(this.usage, turn.usage)
      this.keepText(turn)
      const server: ChatFunctionToolCall[] = []
      const client: ChatToolCall[] = []
      for (const call of turn.toolCalls) {
        if (call.type === 'function' && this.isServerTool(call.function.name)) server.push(call)
        else client.push(call)
      }
      if (server.length === 0) {
        const reason = turn.finishReason ?? (client.length > 0 ? 'tool_calls' : 'stop')
        return this.result(client, reason)
      }
      // The model was told these tools are gone; a turn that still calls only them ends the loop.
      if (server.every((call) => this.retired.has(this.toolFor(call))))
        return this.result(client, client.length > 0 ? 'tool_calls' : 'stop')
      const results = await this.runServerCalls(server, announce)
      if (client.length > 0) return this.result(client, 'tool_calls')
      this.rounds += 1
      this.countRound(server, results)
      this.conversation.push(
        {
          role: 'assistant',
          content: turn.content === '' ? null : turn.content,
          tool_calls: server,
        },
        ...results,
      )
    }
  }

  private async runServerCalls(
    calls: ChatFunctionToolCall[],
    announce: Announce,
  ): Promise<{ role: 'tool'; tool_call_id: string; content: string }[]> {
    const results: { role: 'tool'; tool_call_id: string; content: string }[] = []
    for (const call of calls) {
      if (call.id === '' || typeof call.id !== 'string') call.id = newCallId()
      const tool = this.toolFor(call)
      if (this.retired.has(tool)) {
        results.push({ role: 'tool', tool_call_id: call.id, content: RETIRED_TOOL_NOTE })
        continue
      }
      const id = newServerToolCallId()
      const index = this.records.length
      await announce({ index, ...tool.running(call, id) })
      const outcome = await tool.run(call, id, { signal: this.options.signal })
      this.options.onServerToolCall?.(outcome.record.type, outcome.record.status)
      this.records.push(outcome.record)
      if (outcome.unload) this.list.unload(outcome.unload)
      if (outcome.load) this.list.load(outcome.load)
      await announce({ index, ...outcome.record })
      const result = { role: 'tool' as const, tool_call_id: call.id, content: outcome.modelText }
      results.push(result)
      if (outcome.retire !== undefined) this.retire(tool, result, outcome.retire)
    }
    return results
  }

  private toolFor(call: ChatFunctionToolCall): ServerTool {
    return this.options.serverTools.find((t) => t.handles(call.function.name))!
  }

  /** Counts a round for each tool it used; a tool at its round cap is taken away. */
  private countRound(calls: ChatFunctionToolCall[], results: { content: string }[]): void {
    const used = new Set(calls.map((call) => this.toolFor(call)))
    for (const tool of used) {
      const rounds = (this.toolRounds.get(tool) ?? 0) + 1
      this.toolRounds.set(tool, rounds)
      if (rounds >= (tool.maxRounds ?? MAX_SERVER_TOOL_ROUNDS) && !this.retired.has(tool)) {
        this.retire(tool, results[results.length - 1]!, ROUND_CAP_NOTE)
      }
    }
  }

  private retire(tool: ServerTool, result: { content: string }, note: string): void {
    if (this.retired.has(tool)) return
    this.retired.add(tool)
    this.list.removeServerTools(tool.definitions.map((d) => d.function.name))
    result.content = `${result.content}\n\n${note}`
  }

  private isServerTool(name: string): boolean {
    return this.options.serverTools.some((tool) => tool.handles(name))
  }

  private keepText(turn: Turn): void {
    if (turn.content !== '') {
      this.content += (this.content === '' ? '' : TURN_SEPARATOR) + turn.content
    }
    if (turn.refusal !== '') {
      this.refusal += (this.refusal === '' ? '' : TURN_SEPARATOR) + turn.refusal
    }
  }

  private nextRequest(): ChatCompletionRequest {
    const { request } = this.options
    const tools = this.list.current()
    const next: ChatCompletionRequest = { ...request, messages: this.conversation }
    delete next.n
    delete next.stream_options
    next.stream = false
    if (tools.length === 0) {
      delete next.tools
      delete next.tool_choice
      delete next.parallel_tool_calls
      return next
    }
    next.tools = tools
    const choice = this.toolChoice(request.tool_choice, tools)
    if (choice === undefined) delete next.tool_choice
    else next.tool_choice = choice
    return next
  }

  /**
   * The client's tool_choice for this turn: one that names a server tool holds for the first
   * turn only (else the model could never answer), and one that names a tool no longer listed
   * becomes auto.
   */
  private toolChoice(
    choice: ChatToolChoice | undefined,
    tools: readonly ChatTool[],
  ): ChatToolChoice | undefined {
    if (typeof choice !== 'object' || choice.type !== 'function') return choice
    const name = choice.function.name
    if (this.rounds > 0 && this.isServerTool(name)) return 'auto'
    return tools.some((tool) => toolName(tool) === name) ? choice : 'auto'
  }

  private result(toolCalls: ChatToolCall[], finishReason: ChatFinishReason): LoopResult {
    const fields: ServerToolMessageFields = {}
    for (const tool of this.options.serverTools) Object.assign(fields, tool.messageFields())
    return {
      content: this.content,
      refusal: this.refusal,
      toolCalls,
      finishReason,
      usage: this.usage,
      serverToolCalls: this.records,
      fields,
    }
  }
}
