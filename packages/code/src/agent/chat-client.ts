// Streams one model answer over the OpenAI chat completions API. Against a Syntic server the
// standard tools go out by type name and the server expands them; against a bare upstream the
// client expands them itself, so the model sees the same definitions either way.
import {
  type ChatCompletionRequest,
  type ChatFunctionToolCall,
  type ChatMessage,
  type ChatTool,
  expandChatTools,
  LATEST_SYNTIC_VERSION,
  SYNTIC_VERSION_HEADER,
} from '@syntic/protocol'
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai'
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions'
import type { ModelTarget } from '../config/config.js'

export interface AssistantReply {
  text: string
  toolCalls: ChatFunctionToolCall[]
}

/** A failed model call, worded for the transcript. */
export class ModelError extends Error {
  override name = 'ModelError'
}

/** The user interrupted the call. */
export class InterruptedError extends Error {
  override name = 'InterruptedError'
}

export interface ChatClientOptions {
  target: ModelTarget
  model: string
  /** The folder the editor shows to the model as its root. */
  root: string
  /** Where the shell cuts long output; the model is told. */
  maxOutputChars: number
  /** Retries of failed connections and 5xx answers (default 1). */
  maxRetries?: number
}

interface PartialCall {
  id: string
  name: string
  arguments: string
}

export class ChatClient {
  private readonly client: OpenAI
  private readonly tools: ChatTool[]
  private readonly target: ModelTarget

  constructor(private readonly options: ChatClientOptions) {
    this.target = options.target
    this.client = new OpenAI({
      baseURL: options.target.baseUrl,
      // Local upstreams (vLLM, llama.cpp, Ollama) take no key; the client library insists on one.
      apiKey: options.target.apiKey ?? 'none',
      maxRetries: options.maxRetries ?? 1,
      defaultHeaders:
        options.target.kind === 'syntic' ? { [SYNTIC_VERSION_HEADER]: LATEST_SYNTIC_VERSION } : {},
    })
    this.tools = [
      { type: 'syntic_text_editor', root: options.root },
      { type: 'syntic_shell', max_output_chars: options.maxOutputChars },
      { type: 'syntic_memory' },
    ]
  }

  /** The request body as sent: standard tools expanded unless a Syntic server will do it. */
  request(messages: ChatMessage[]): ChatCompletionRequest {
    const request: ChatCompletionRequest = {
      model: this.options.model,
      messages,
      tools: this.tools,
      stream: true,
    }
    return this.target.kind === 'syntic' ? request : expandChatTools(request, LATEST_SYNTIC_VERSION)
  }

  /** Streams one answer; `onText` gets each piece of text as it arrives. */
  async complete(
    messages: ChatMessage[],
    signal: AbortSignal,
    onText: (delta: string) => void,
  ): Promise<AssistantReply> {
    // Our request type is the wire format; the SDK's type has no standard tool entries.
    const body = this.request(messages) as unknown as ChatCompletionCreateParamsStreaming
    let text = ''
    const calls: PartialCall[] = []
    let chunks = 0
    let finished = false
    try {
      const stream = await this.client.chat.completions.create(body, { signal })
      for await (const chunk of stream) {
        chunks += 1
        const delta = readDelta(chunk)
        if (delta.finished) finished = true
        if (delta.text !== '') {
          text += delta.text
          onText(delta.text)
        }
        for (const call of delta.calls) mergeCall(calls, call)
      }
    } catch (error) {
      throw this.describe(error, signal)
    }
    if (signal.aborted) throw new InterruptedError('interrupted')
    // A body that is not an event stream parses as no events at all; a cut-off one has no finish.
    if (chunks === 0)
      throw new ModelError(
        `${this.where()} sent no stream events (is it an OpenAI-compatible /v1 URL?)`,
      )
    if (!finished)
      throw new ModelError(`the answer from ${this.where()} ended before the model finished`)
    const toolCalls = calls.map(
      (call, i): ChatFunctionToolCall => ({
        id: call.id === '' ? `call_${i}` : call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }),
    )
    return { text, toolCalls }
  }

  private where(): string {
    return this.target.kind === 'syntic' ? 'the Syntic server' : 'the upstream'
  }

  private describe(error: unknown, signal: AbortSignal): Error {
    if (signal.aborted || error instanceof APIUserAbortError)
      return new InterruptedError('interrupted')
    if (error instanceof ModelError) return error
    const where = this.where()
    if (error instanceof APIConnectionError) {
      return new ModelError(`cannot reach ${where} at ${this.target.baseUrl}: ${causeOf(error)}`)
    }
    if (error instanceof APIError) {
      const message = upstreamMessage(error)
      return new ModelError(
        `${where} answered ${error.status ?? 'an error'}${message === '' ? '' : `: ${message}`}`,
      )
    }
    if (error instanceof SyntaxError) {
      return new ModelError(`${where} sent a stream that is not valid JSON (${error.message})`)
    }
    const message = error instanceof Error ? error.message : String(error)
    return new ModelError(`the answer from ${where} broke off: ${message}`)
  }
}

function causeOf(error: APIConnectionError): string {
  const cause = error.cause as
    | (Error & { code?: string; cause?: Error & { code?: string } })
    | undefined
  return cause?.cause?.code ?? cause?.code ?? cause?.message ?? error.message
}

function upstreamMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined
  const message = typeof body?.message === 'string' ? body.message : error.message
  return message.replace(/\s+/g, ' ').slice(0, 500)
}

interface Delta {
  text: string
  finished: boolean
  calls: { index: number; id?: string; name?: string; arguments?: string }[]
}

function readDelta(chunk: ChatCompletionChunk): Delta {
  if (typeof chunk !== 'object' || chunk === null || !Array.isArray(chunk.choices)) {
    throw new ModelError('the model sent a stream chunk without choices')
  }
  const choice = chunk.choices[0]
  const delta = choice?.delta
  const calls: Delta['calls'] = []
  for (const call of delta?.tool_calls ?? []) {
    calls.push({
      index: typeof call.index === 'number' ? call.index : 0,
      id: call.id ?? undefined,
      name: call.function?.name ?? undefined,
      arguments: call.function?.arguments ?? undefined,
    })
  }
  const finished = typeof choice?.finish_reason === 'string'
  return { text: typeof delta?.content === 'string' ? delta.content : '', finished, calls }
}

// Calls stream in pieces keyed by index: the id and name once, the arguments in fragments.
const MAX_CALLS = 64

function mergeCall(calls: PartialCall[], piece: Delta['calls'][number]): void {
  if (piece.index < 0 || piece.index >= MAX_CALLS) {
    throw new ModelError(`the model sent a tool call with index ${piece.index}`)
  }
  while (calls.length <= piece.index) calls.push({ id: '', name: '', arguments: '' })
  const call = calls[piece.index]!
  if (piece.id !== undefined && call.id === '') call.id = piece.id
  if (piece.name !== undefined) call.name += piece.name
  if (piece.arguments !== undefined) call.arguments += piece.arguments
}
