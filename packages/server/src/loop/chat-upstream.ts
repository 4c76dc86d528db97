import {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  chatRequestToMessages,
  type MessagesResponse,
  type MessagesStreamEvent,
  MessagesToChatStream,
  messagesResponseToChat,
} from '@syntic/protocol'
import { ApiError } from '../errors.js'
import { objectBody, parseEventData } from '../http/dialects.js'
import type { SseEvent, Upstream } from '../upstream/port.js'

/** Marks the time spent waiting on the upstream, for the request log and metrics. */
export interface UpstreamWait {
  started(): void
  ended(): void
}

/**
 * The upstream as the loop sees it: chat requests in, chat responses and chunks out, whatever
 * format the upstream speaks. `request.model` is already the upstream's id.
 */
export interface ChatUpstream {
  complete(request: ChatCompletionRequest, signal: AbortSignal): Promise<ChatCompletion>
  stream(
    request: ChatCompletionRequest,
    signal: AbortSignal,
  ): Promise<AsyncIterable<ChatCompletionChunk>>
}

export function chatUpstream(upstream: Upstream, wait: UpstreamWait): ChatUpstream {
  const anthropic = upstream.format === 'anthropic'
  const excerpt = (text: string) => upstream.excerpt(text)
  const body = (request: ChatCompletionRequest): Record<string, unknown> =>
    anthropic
      ? (chatRequestToMessages(request) as unknown as Record<string, unknown>)
      : (request as unknown as Record<string, unknown>)

  const send = async (request: ChatCompletionRequest, stream: boolean, signal: AbortSignal) => {
    wait.started()
    try {
      return await upstream.send({ body: body(request), stream, signal })
    } finally {
      wait.ended()
    }
  }

  return {
    async complete(request, signal) {
      const result = await send(request, false, signal)
      if (result.kind !== 'json')
        throw new Error('the upstream streamed a reply that was not asked for')
      const object = objectBody(result.body)
      const completion = anthropic
        ? messagesResponseToChat(object as unknown as MessagesResponse, request.model)
        : (object as unknown as ChatCompletion)
      if (!hasMessage(completion)) {
        throw new ApiError(
          502,
          'upstream_error',
          'upstream_error',
          'the upstream model server sent a reply without choices[0].message',
        )
      }
      return completion
    },
    async stream(request, signal) {
      const result = await send(request, true, signal)
      if (result.kind !== 'stream')
        throw new Error('the upstream answered a stream request with JSON')
      return anthropic
        ? messagesAsChunks(result.events, request.model, wait, excerpt)
        : chatChunks(result.events, wait, excerpt)
    },
  }
}

function hasMessage(completion: ChatCompletion): boolean {
  const choice: unknown = Array.isArray(completion.choices) ? completion.choices[0] : undefined
  return (
    typeof choice === 'object' &&
    choice !== null &&
    typeof (choice as { message?: unknown }).message === 'object' &&
    (choice as { message?: unknown }).message !== null
  )
}

/** The upstream's events, the wait on each counted as upstream time. */
async function* timed(
  events: AsyncIterable<SseEvent>,
  wait: UpstreamWait,
): AsyncGenerator<SseEvent> {
  const iterator = events[Symbol.asyncIterator]()
  try {
    for (;;) {
      let next: IteratorResult<SseEvent>
      wait.started()
      try {
        next = await iterator.next()
      } finally {
        wait.ended()
      }
      if (next.done) return
      yield next.value
    }
  } finally {
    await iterator.return?.()
  }
}

async function* chatChunks(
  events: AsyncIterable<SseEvent>,
  wait: UpstreamWait,
  excerpt: (text: string) => string,
): AsyncGenerator<ChatCompletionChunk> {
  for await (const event of timed(events, wait)) {
    yield parseEventData(event.data, excerpt) as ChatCompletionChunk
  }
}

async function* messagesAsChunks(
  events: AsyncIterable<SseEvent>,
  model: string,
  wait: UpstreamWait,
  excerpt: (text: string) => string,
): AsyncGenerator<ChatCompletionChunk> {
  const translator = new MessagesToChatStream(model, undefined, { includeUsage: true })
  for await (const event of timed(events, wait)) {
    yield* translator.push(parseEventData(event.data, excerpt) as MessagesStreamEvent)
  }
  yield* translator.finish()
}
