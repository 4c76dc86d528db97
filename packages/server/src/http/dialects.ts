import {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  ChatToMessagesStream,
  CODE_EXECUTION_TYPE,
  chatRequestToMessages,
  chatResponseToMessages,
  expandChatTools,
  expandMessagesTools,
  type MessagesRequest,
  type MessagesResponse,
  type MessagesStreamEvent,
  MessagesToChatStream,
  messagesRequestToChat,
  messagesResponseToChat,
  type SynticVersion,
  stripMessagesServerRecords,
  stripServerRecords,
  TOOL_SEARCH_TYPE,
  validateChatRequest,
  validateMessagesRequest,
} from '@syntic/protocol'
import { ApiError, type ErrorEnvelope } from '../errors.js'
import type { SseEvent, UpstreamFormat } from '../upstream/port.js'
import { CHAT_DONE, chatEvent, messagesEvent } from './sse.js'

export interface ValidationProblem {
  code: string
  message: string
  param: string | null
}

/** Quotes raw upstream data for an error message, the upstream key redacted (`Upstream.excerpt`). */
export type Excerpt = (text: string) => string

export type Validation<T> = { ok: true; value: T } | { ok: false; problem: ValidationProblem }

/** Turns a stream of the other format into this endpoint's stream, event by event. */
export interface StreamTranslator {
  /** The SSE text for one upstream event's parsed data. */
  push(data: unknown): string
  /** The SSE text that closes the translated stream. */
  finish(): string
}

/**
 * Everything that differs between the two model endpoints: their wire format, how a request is
 * checked and expanded, how it is translated for an upstream of the other format, and how
 * responses and streams are written back.
 */
export interface Dialect<Req extends { model: string; stream?: boolean | null }> {
  /** The format the endpoint speaks; an upstream in the same format gets requests unchanged. */
  readonly format: UpstreamFormat
  validate(body: unknown): Validation<Req>
  /** Replaces the standard tool entries by the definitions the API version gives them. */
  expandTools(request: Req, version: SynticVersion): Req
  /** The request in the other format, for the other kind of upstream. */
  requestForOther(request: Req): Record<string, unknown>
  /** The other format's response as this endpoint's, naming `model`. */
  responseFromOther(body: unknown, model: string): unknown
  streamFromOther(request: Req, model: string): StreamTranslator
  /** One upstream event in this endpoint's own format, its model renamed when `model` is set. */
  passThrough(event: SseEvent, model: string | null, excerpt: Excerpt): string
  /** What ends a successful stream. */
  readonly streamEnd: string
  /** Whether the request lists a server tool: then the server tool loop answers it. */
  usesServerTools(request: Req): boolean
  /**
   * The request without what only Syntic reads (server tool records, `mcp_servers`,
   * `defer_loading`), which upstreams reject; the same object when there is none.
   */
  stripRecords(request: Req): Req
  /** The request in the chat format, in which the server tool loop runs. */
  toChat(request: Req): ChatCompletionRequest
  /** The loop's chat completion as this endpoint's response. */
  responseFromChat(completion: ChatCompletion, model: string): unknown
  /** Writes the loop's chat chunks as this endpoint's stream. */
  streamFromChat(request: Req, model: string): StreamTranslator
  /** An error after the stream started, in the form the official SDKs raise. */
  errorEvent(error: ErrorEnvelope): string
}

export const CHAT: Dialect<ChatCompletionRequest> = {
  format: 'openai',
  validate: validateChatRequest,
  expandTools: expandChatTools,
  requestForOther: (request) =>
    chatRequestToMessages(request) as unknown as Record<string, unknown>,
  responseFromOther: (body, model) =>
    messagesResponseToChat(objectBody(body) as unknown as MessagesResponse, model),
  streamFromOther(request, model) {
    // A usage chunk (`choices: []`) only for clients that asked: some read choices[0] of every chunk.
    const translator = new MessagesToChatStream(model, undefined, {
      includeUsage: request.stream_options?.include_usage === true,
    })
    const encode = (chunks: ChatCompletionChunk[]) => {
      let text = ''
      for (const chunk of chunks) text += chatEvent(JSON.stringify(chunk))
      return text
    }
    return {
      push: (data) => encode(translator.push(data as MessagesStreamEvent)),
      finish: () => encode(translator.finish()),
    }
  },
  passThrough(event, model, excerpt) {
    if (model === null) return chatEvent(oneLine(event.data))
    const chunk = parseEventData(event.data, excerpt) as ChatCompletionChunk
    chunk.model = model
    return chatEvent(JSON.stringify(chunk))
  },
  streamEnd: CHAT_DONE,
  usesServerTools: (request) => hasSearchTool(request.tools),
  stripRecords: stripServerRecords,
  toChat: (request) => request,
  responseFromChat: (completion) => completion,
  streamFromChat(request) {
    const usage = request.stream_options?.include_usage === true
    return {
      push(data) {
        const chunk = data as ChatCompletionChunk
        // The usage chunk (`choices: []`) only for clients that asked: some read choices[0].
        if (!usage && chunk.choices.length === 0) return ''
        return chatEvent(JSON.stringify(chunk))
      },
      finish: () => '',
    }
  },
  // The openai SDK raises APIError for any event whose data has an `error` field.
  errorEvent: (error) => chatEvent(JSON.stringify(error)),
}

export const MESSAGES: Dialect<MessagesRequest> = {
  format: 'anthropic',
  validate: validateMessagesRequest,
  expandTools: expandMessagesTools,
  requestForOther: (request) =>
    messagesRequestToChat(request) as unknown as Record<string, unknown>,
  responseFromOther: (body, model) =>
    chatResponseToMessages(objectBody(body) as unknown as ChatCompletion, model),
  streamFromOther(_request, model) {
    const translator = new ChatToMessagesStream(model)
    const encode = (events: MessagesStreamEvent[]) => {
      let text = ''
      for (const event of events) text += messagesEvent(event.type, JSON.stringify(event))
      return text
    }
    return {
      push: (data) => encode(translator.push(data as ChatCompletionChunk)),
      finish: () => encode(translator.finish()),
    }
  },
  passThrough(event, model, excerpt) {
    const type = event.event ?? eventType(event.data, excerpt)
    if (model === null || type !== 'message_start') return messagesEvent(type, oneLine(event.data))
    const start = parseEventData(event.data, excerpt) as { message?: { model?: string } }
    if (start.message) start.message.model = model
    return messagesEvent(type, JSON.stringify(start))
  },
  streamEnd: '',
  usesServerTools: (request) => hasSearchTool(request.tools),
  stripRecords: stripMessagesServerRecords,
  toChat: (request) => messagesRequestToChat(request),
  responseFromChat: (completion, model) => chatResponseToMessages(completion, model),
  // The loop's chunks are chat chunks: the same translation as for a chat upstream.
  streamFromChat: (request, model) => MESSAGES.streamFromOther(request, model),
  // The Anthropic SDK raises APIError for an `error` event, with its data as the error body.
  errorEvent: (error) => messagesEvent('error', JSON.stringify(error)),
}

/** The upstream's reply when it is a JSON object; anything else is the upstream's fault. */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    return body as Record<string, unknown>
  }
  throw new ApiError(
    502,
    'upstream_error',
    'upstream_error',
    'the upstream model server sent a reply that is not a JSON object',
  )
}

const EVENT_NAME = /^[a-z_]{1,64}$/

/** The `type` of an event sent without an `event:` line (some compatible servers omit it). */
function eventType(data: string, excerpt: Excerpt): string {
  const { type } = parseEventData(data, excerpt) as { type?: unknown }
  // Written into the `event:` line, so it must not be able to break the framing.
  return typeof type === 'string' && EVENT_NAME.test(type) ? type : 'message'
}

/**
 * Data that arrived on several `data:` lines holds newlines; in JSON they can only be whitespace
 * between tokens, and one line keeps each event a single `data:` line as strict clients expect.
 */
function oneLine(data: string): string {
  return data.includes('\n') ? data.replaceAll('\n', ' ') : data
}

/** An upstream event's data; data that is not JSON means the stream is broken. */
export function parseEventData(data: string, excerpt: Excerpt): unknown {
  try {
    return JSON.parse(data)
  } catch {
    throw new ApiError(
      502,
      'upstream_error',
      'upstream_stream_interrupted',
      `the upstream model server sent an event that is not JSON: ${excerpt(data)}`,
    )
  }
}

function hasSearchTool(tools: readonly { type?: unknown }[] | undefined): boolean {
  return (
    tools?.some((tool) => tool.type === TOOL_SEARCH_TYPE || tool.type === CODE_EXECUTION_TYPE) ??
    false
  )
}
