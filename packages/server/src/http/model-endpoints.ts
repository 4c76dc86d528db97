import type { OutgoingHttpHeaders } from 'node:http'
import {
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatUsage,
  CODE_EXECUTION_TYPE,
  type MessagesRequest,
  resolveSynticVersion,
  SYNTIC_VERSION_HEADER,
  stripServerRecords,
  TOOL_SEARCH_TYPE,
} from '@syntic/protocol'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { RetryableApiError } from '../containers/errors.js'
import { ApiError, envelope } from '../errors.js'
import { chatUpstream } from '../loop/chat-upstream.js'
import { type ChunkSink, ChunkWriter } from '../loop/chunk-writer.js'
import { completionFromLoop } from '../loop/completion.js'
import { newCompletionId } from '../loop/ids.js'
import { ToolLoop } from '../loop/tool-loop.js'
import type { Metrics } from '../metrics.js'
import { type LogSink, writeErrorLog } from '../request-log.js'
import {
  type CodeExecutionDeps,
  type PreparedServerTools,
  prepareServerTools,
  type ResponseExtras,
  type ToolIndex,
} from '../server-tools/index.js'
import type { SseEvent, Upstream } from '../upstream/port.js'
import {
  CHAT,
  type Dialect,
  type Excerpt,
  MESSAGES,
  objectBody,
  parseEventData,
  type ValidationProblem,
} from './dialects.js'
import { internalError, invalidJson, unsupportedMediaType } from './errors.js'
import type { ModelMap } from './model-map.js'
import { ClientGone, type RequestState } from './request-state.js'
import { SseResponse } from './sse.js'

export interface ModelEndpointsDeps {
  upstream: Upstream | null
  models: ModelMap
  metrics: Metrics
  errorLog: LogSink
  /** The process-wide tool search index, shared by every request. */
  toolIndex: ToolIndex
  /** Counts a server tool call by type and status. */
  serverToolCalls: (type: string, status: string) => void
  /** Containers, files, organisation settings and billing for code execution. */
  codeExecution: CodeExecutionDeps
}

type ModelRequest = { model: string; stream?: boolean | null }

const NOT_CONFIGURED = new ApiError(
  503,
  'api_error',
  'upstream_not_configured',
  'No upstream model server is configured. The operator must set SYNTIC_UPSTREAM_URL (and SYNTIC_UPSTREAM_FORMAT for an Anthropic server) and restart.',
)

/**
 * `POST /v1/chat/completions` and `POST /v1/messages`: check the request, expand the standard
 * tools, map the model, call the upstream in its own format, and answer in the client's, as JSON
 * or as a stream.
 */
export class ModelEndpoints {
  constructor(private readonly deps: ModelEndpointsDeps) {}

  chatCompletions(request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
    return this.handle<ChatCompletionRequest>(CHAT, request, reply)
  }

  messages(request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
    return this.handle<MessagesRequest>(MESSAGES, request, reply)
  }

  /**
   * Resolves to the JSON text to send, or undefined once the reply was taken over (streams). The
   * caller was authenticated before its body was read (the route's onRequest hook).
   */
  private async handle<Req extends ModelRequest>(
    dialect: Dialect<Req>,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<string | undefined> {
    const state = request.syntic!
    const { headers } = request
    if (request.body === undefined) {
      throw headers['content-type'] === undefined
        ? unsupportedMediaType()
        : invalidJson('The request body is empty; send a JSON object')
    }
    const version = resolveSynticVersion(single(headers['syntic-version']))
    if (!version.ok) {
      throw new ApiError(
        400,
        'invalid_request_error',
        'invalid_syntic_version',
        version.error,
        SYNTIC_VERSION_HEADER,
      )
    }
    const checked = dialect.validate(request.body)
    if (!checked.ok) throw problem(checked.problem)
    const clientRequest = dialect.expandTools(checked.value, version.version)
    const requested = clientRequest.model
    state.model = requested
    state.stream = clientRequest.stream === true
    const upstreamId = this.deps.models.upstreamId(requested)
    const upstream = this.deps.upstream
    if (upstream === null) throw NOT_CONFIGURED

    const serverTools = dialect.usesServerTools(clientRequest)
    if (serverTools) this.checkServerToolsSupported(clientRequest, requested)
    const signal = upstreamCall(request, state)
    if (serverTools) {
      return this.loop(dialect, reply, state, signal, {
        request: clientRequest,
        requested,
        upstreamId,
        upstream,
      })
    }

    const relayed = dialect.stripRecords(clientRequest)
    const sameFormat = upstream.format === dialect.format
    const mapped = upstreamId === requested ? relayed : { ...relayed, model: upstreamId }
    const body = sameFormat ? (mapped as Record<string, unknown>) : dialect.requestForOther(mapped)

    try {
      let result: Awaited<ReturnType<Upstream['send']>>
      state.upstreamWaitStarted()
      try {
        result = await upstream.send({ body, stream: state.stream, signal })
      } finally {
        state.upstreamWaitEnded()
      }
      if (result.kind === 'stream') {
        if (!state.stream) throw new Error('the upstream streamed a reply that was not asked for')
        await this.stream(dialect, reply, state, result.events, signal, {
          excerpt: (text) => upstream.excerpt(text),
          request: clientRequest,
          sameFormat,
          requested,
          rename: sameFormat && upstreamId !== requested,
        })
        return undefined
      }
      if (state.stream) throw new Error('the upstream answered a stream request with JSON')
      const answer = sameFormat
        ? renamed(result.body, upstreamId === requested ? null : requested)
        : dialect.responseFromOther(result.body, requested)
      reply.type('application/json; charset=utf-8')
      return JSON.stringify(answer)
    } catch (error) {
      return this.failed(error, signal, reply)
    }
  }

  private async stream<Req extends ModelRequest>(
    dialect: Dialect<Req>,
    reply: FastifyReply,
    state: RequestState,
    events: AsyncIterable<SseEvent>,
    signal: AbortSignal,
    how: {
      excerpt: Excerpt
      request: Req
      sameFormat: boolean
      requested: string
      rename: boolean
    },
  ): Promise<void> {
    const sse = new SseResponse(reply.raw, streamHeaders(state.id), () => reply.hijack())
    const iterator = events[Symbol.asyncIterator]()
    const translator = how.sameFormat ? null : dialect.streamFromOther(how.request, how.requested)
    const model = how.rename ? how.requested : null
    try {
      for (;;) {
        let next: IteratorResult<SseEvent>
        state.upstreamWaitStarted()
        try {
          next = await iterator.next()
        } finally {
          state.upstreamWaitEnded()
        }
        if (next.done) break
        const text =
          translator === null
            ? dialect.passThrough(next.value, model, how.excerpt)
            : translator.push(parseEventData(next.value.data, how.excerpt))
        if (text === '') continue
        const drained = sse.write(text)
        if (drained !== undefined) await drained
        if (!sse.open) return
      }
      sse.end((translator === null ? '' : translator.finish()) + dialect.streamEnd)
    } catch (error) {
      this.endStreamWithError(error, dialect, sse, state, signal)
    } finally {
      await iterator.return?.()
    }
  }

  /**
   * A request with server tools: the loop runs in the chat format, calling the upstream as many
   * times as the model uses server tools, and answers in the client's format.
   */
  private async loop<Req extends ModelRequest>(
    dialect: Dialect<Req>,
    reply: FastifyReply,
    state: RequestState,
    signal: AbortSignal,
    call: { request: Req; requested: string; upstreamId: string; upstream: Upstream },
  ): Promise<string | undefined> {
    const chat = dialect.toChat(call.request)
    let prepared: PreparedServerTools | null
    try {
      prepared = await prepareServerTools(
        chat,
        { toolIndex: this.deps.toolIndex, codeExecution: this.deps.codeExecution },
        { scope: state.principal!, requestId: state.id },
      )
    } catch (error) {
      if (error instanceof RetryableApiError) {
        reply.header('retry-after', String(error.retryAfterSeconds))
      }
      throw error
    }
    if (prepared === null) throw new Error('a request with server tools has no server tool plan')
    try {
      return await this.runLoop(dialect, reply, state, signal, call, chat, prepared)
    } finally {
      prepared.release()
      // Runs that happened are billed even when the request failed after them.
      await prepared.settle().catch((error) => writeErrorLog(this.deps.errorLog, state.id, error))
    }
  }

  private async runLoop<Req extends ModelRequest>(
    dialect: Dialect<Req>,
    reply: FastifyReply,
    state: RequestState,
    signal: AbortSignal,
    call: { request: Req; requested: string; upstreamId: string; upstream: Upstream },
    chat: ChatCompletionRequest,
    prepared: PreparedServerTools,
  ): Promise<string | undefined> {
    const { requested } = call
    const wait = {
      started: () => state.upstreamWaitStarted(),
      ended: () => state.upstreamWaitEnded(),
    }
    const loop = new ToolLoop({
      request: { ...stripServerRecords(chat), model: call.upstreamId },
      baseTools: prepared.baseTools,
      serverTools: prepared.serverTools,
      upstream: chatUpstream(call.upstream, wait),
      signal,
      onServerToolCall: this.deps.serverToolCalls,
    })
    const id = newCompletionId()
    const created = Math.floor(Date.now() / 1000)
    try {
      if (!state.stream) {
        const result = await loop.complete()
        const completion = withExtras(
          completionFromLoop(result, id, created, requested),
          await prepared.settle(),
        )
        reply.type('application/json; charset=utf-8')
        return JSON.stringify(dialect.responseFromChat(completion, requested))
      }
      await this.streamLoop(dialect, reply, state, signal, loop, {
        writer: (sink) => new ChunkWriter(id, created, requested, sink),
        request: call.request,
        requested,
        settle: () => prepared.settle(),
      })
      return undefined
    } catch (error) {
      return this.failed(error, signal, reply)
    }
  }

  private async streamLoop<Req extends ModelRequest>(
    dialect: Dialect<Req>,
    reply: FastifyReply,
    state: RequestState,
    signal: AbortSignal,
    loop: ToolLoop,
    how: {
      writer: (sink: ChunkSink) => ChunkWriter
      request: Req
      requested: string
      settle: () => Promise<ResponseExtras>
    },
  ): Promise<void> {
    const sse = new SseResponse(reply.raw, streamHeaders(state.id), () => reply.hijack())
    const encoder = dialect.streamFromChat(how.request, how.requested)
    const writer = how.writer((chunk) => {
      const text = encoder.push(chunk)
      if (text === '' || !sse.open) return undefined
      return sse.write(text)
    })
    try {
      const result = await loop.stream(writer)
      if (result.fields.tool_search !== undefined) {
        await writer.delta({ tool_search: result.fields.tool_search })
      }
      if (result.fields.files !== undefined) await writer.delta({ files: result.fields.files })
      const extras = await how.settle()
      await writer.finish(result.finishReason, extras.container)
      const usage = withServerToolUse(result.usage, extras)
      if (usage !== undefined) await writer.usage(usage)
      if (sse.open) sse.end(encoder.finish() + dialect.streamEnd)
    } catch (error) {
      this.endStreamWithError(error, dialect, sse, state, signal)
    }
  }

  /** A call that failed: with nobody listening nothing is sent; otherwise the caller answers. */
  private failed(error: unknown, signal: AbortSignal, reply: FastifyReply): undefined {
    if (signal.aborted) {
      reply.hijack()
      return undefined
    }
    if (error instanceof ApiError) this.noteUpstreamError(error)
    throw error
  }

  /**
   * A stream that failed after it started ends with an error event both SDKs raise. Before the
   * first byte, or with nobody listening, the caller decides what (if anything) to send.
   */
  private endStreamWithError<Req extends ModelRequest>(
    error: unknown,
    dialect: Dialect<Req>,
    sse: SseResponse,
    state: RequestState,
    signal: AbortSignal,
  ): void {
    if (signal.aborted || !sse.started) throw error
    if (!sse.open) return
    const api = this.inBandError(error, state.id)
    state.errorCode = api.code
    sse.end(dialect.errorEvent(envelope(api, state.id)))
  }

  /** 400 `server_tool_not_supported` for a server tool the model's configuration leaves out. */
  private checkServerToolsSupported(request: ModelRequest, requested: string): void {
    const tools = (request as { tools?: readonly { type?: unknown }[] }).tools ?? []
    for (let i = 0; i < tools.length; i++) {
      const type = tools[i]!.type
      if (type !== CODE_EXECUTION_TYPE && type !== TOOL_SEARCH_TYPE) continue
      if (this.deps.models.supports(requested, type)) continue
      throw new ApiError(
        400,
        'invalid_request_error',
        'server_tool_not_supported',
        `The model ${JSON.stringify(requested.slice(0, 100))} cannot use ${type}; remove it from tools or use a model that supports it.`,
        `tools[${i}].type`,
      )
    }
  }

  private inBandError(error: unknown, requestId: string): ApiError {
    if (error instanceof ApiError) {
      this.noteUpstreamError(error)
      return error
    }
    writeErrorLog(this.deps.errorLog, requestId, error)
    return internalError()
  }

  private noteUpstreamError(error: ApiError): void {
    if (error.code.startsWith('upstream_')) this.deps.metrics.upstreamError(error.code)
  }
}

/** The abort controller of the request's upstream calls, cancelled when the client leaves. */
function upstreamCall(request: FastifyRequest, state: RequestState): AbortSignal {
  const controller = new AbortController()
  state.upstreamCall = controller
  // A client that left while its request was checked gets no upstream call at all.
  if (request.raw.socket.destroyed) controller.abort(new ClientGone())
  return controller.signal
}

function problem(p: ValidationProblem): ApiError {
  return new ApiError(400, 'invalid_request_error', p.code, p.message, p.param)
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}

function streamHeaders(id: string): OutgoingHttpHeaders {
  return {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    // Proxies such as nginx would otherwise hold events back to fill their buffers.
    'x-accel-buffering': 'no',
    'x-request-id': id,
    'request-id': id,
  }
}

/** The completion with the top-level `container` and `usage.server_tool_use` of its server tools. */
function withExtras(completion: ChatCompletion, extras: ResponseExtras): ChatCompletion {
  if (extras.container !== undefined) completion.container = extras.container
  const usage = withServerToolUse(completion.usage, extras)
  if (usage !== undefined) completion.usage = usage
  return completion
}

function withServerToolUse(
  usage: ChatUsage | undefined,
  extras: ResponseExtras,
): ChatUsage | undefined {
  if (extras.serverToolUse === undefined) return usage
  const base = usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }
  return { ...base, server_tool_use: extras.serverToolUse }
}

/** The upstream's JSON reply in the client's own format, naming the model the client asked for. */
function renamed(body: unknown, model: string | null): unknown {
  const object = objectBody(body)
  if (model !== null) object.model = model
  return object
}
