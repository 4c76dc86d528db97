import type { Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { ApiError } from '../errors.js'
import {
  abortReason,
  streamInterrupted,
  transportError,
  type UpstreamTarget,
  upstreamExcerpt,
  upstreamMessage,
} from './errors.js'
import { MAX_SSE_LINE_CHARS } from './limits.js'
import type { SseEvent, UpstreamFormat } from './port.js'
import { SseParser, SseSyntaxError } from './sse-parser.js'

/** Parsed events held while the consumer is slower than the upstream, before pausing the socket. */
const HIGH_WATER_EVENTS = 256
/** Bytes still read after `[DONE]` so the connection can be reused; past this it is dropped. */
const DRAIN_LIMIT_BYTES = 64 * 1024
const END: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined })

/**
 * The events of an upstream SSE body, as an async iterator that owns the body: it ends at
 * `data: [DONE]` (not yielded), or at the end of an Anthropic body after its `message_stop` event;
 * it throws ApiError when the stream breaks or ends without that terminator (a connection cut off
 * cleanly is still an unfinished answer), the upstream reports an error event, or the abort
 * signal fires (then it throws the signal's reason), and drops the connection when the consumer
 * stops early.
 *
 * A hand-rolled iterator over 'data' events rather than an async generator over the Readable:
 * one fewer promise per chunk, and it can finish at `[DONE]` while the rest of the body drains.
 * Like every async iterator it expects one `next()` at a time, as `for await` calls it.
 */
export class SseEventStream implements AsyncIterableIterator<SseEvent> {
  private readonly parser: SseParser
  private readonly decoder = new StringDecoder('utf8')
  private queue: SseEvent[] = []
  private head = 0
  private ended = false
  private failure: Error | undefined
  private done = false
  /** Whether the terminator of the format arrived: only then is the end of the body clean. */
  private complete = false
  private drained = 0
  private waiting: ((result: IteratorResult<SseEvent>) => void) | undefined
  private failWaiting: ((error: Error) => void) | undefined

  constructor(
    private readonly body: Readable,
    private readonly signal: AbortSignal,
    private readonly target: UpstreamTarget,
    private readonly format: UpstreamFormat,
  ) {
    this.parser = new SseParser(MAX_SSE_LINE_CHARS, target.apiKey)
    body.on('data', (chunk: Buffer) => this.onData(chunk))
    body.on('end', () => this.onEnd())
    body.on('error', (error: Error) => this.fail(error))
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<SseEvent>> {
    const step = this.step()
    if (step === undefined) {
      if (this.body.isPaused()) this.body.resume()
      return new Promise((resolve, reject) => {
        this.waiting = resolve
        this.failWaiting = reject
      })
    }
    return step instanceof Error ? Promise.reject(step) : Promise.resolve(step)
  }

  return(): Promise<IteratorResult<SseEvent>> {
    this.finish(!this.ended)
    return Promise.resolve(END)
  }

  /** The next result if one is ready: an event, the end, or the failure to throw. */
  private step(): IteratorResult<SseEvent> | Error | undefined {
    if (this.done) return END
    if (this.signal.aborted) {
      this.body.destroy()
      return this.stop(abortReason(this.signal))
    }
    if (this.head < this.queue.length) return this.take()
    if (this.failure !== undefined) return this.stop(this.failure)
    if (this.ended) {
      if (!this.complete) return this.stop(streamInterrupted(this.target, this.unfinished()))
      this.finish(false)
      return END
    }
    return undefined
  }

  private take(): IteratorResult<SseEvent> | Error {
    const event = this.queue[this.head]!
    this.head += 1
    if (this.head === this.queue.length) {
      this.queue = []
      this.head = 0
    }
    if (event.data === '[DONE]') {
      this.drain()
      this.finish(false)
      return END
    }
    const problem = this.check(event)
    if (problem !== undefined) {
      this.body.destroy()
      return this.stop(problem)
    }
    if (this.format === 'anthropic' && isMessageStop(event)) this.complete = true
    return { done: false, value: event }
  }

  private unfinished(): string {
    return this.format === 'anthropic'
      ? 'the body ended before the message_stop event'
      : 'the body ended before data: [DONE]'
  }

  /** An upstream error event, or data that cannot be one JSON object, ends the stream. */
  private check(event: SseEvent): ApiError | undefined {
    const { data } = event
    if (event.event === 'error' || data.startsWith('{"error"')) {
      return new ApiError(
        502,
        'upstream_error',
        'upstream_error',
        `the upstream model server reported an error mid-stream: ${upstreamMessage(data, this.target.apiKey)}`,
      )
    }
    if (data.charCodeAt(0) === 123 && data.charCodeAt(data.length - 1) === 125) return undefined
    const trimmed = data.trim()
    if (trimmed.startsWith('{') && trimmed.endsWith('}')) return undefined
    return streamInterrupted(
      this.target,
      `an event's data is not a JSON object: ${upstreamExcerpt(data, this.target.apiKey)}`,
    )
  }

  private onData(chunk: Buffer): void {
    if (this.done) {
      this.drained += chunk.length
      if (this.drained > DRAIN_LIMIT_BYTES) this.body.destroy()
      return
    }
    try {
      this.parser.feed(this.decoder.write(chunk), this.queue)
    } catch (error) {
      this.body.destroy()
      this.fail(error as Error)
      return
    }
    if (this.queue.length - this.head > HIGH_WATER_EVENTS) this.body.pause()
    this.wake()
  }

  private onEnd(): void {
    if (this.done) return
    try {
      this.parser.feed(this.decoder.end(), this.queue)
      this.parser.end(this.queue)
    } catch (error) {
      this.fail(error as Error)
      return
    }
    this.ended = true
    this.wake()
  }

  private fail(error: Error): void {
    if (this.done || this.failure !== undefined) return
    this.failure = this.translate(error)
    this.wake()
  }

  private translate(error: Error): Error {
    if (this.signal.aborted) return abortReason(this.signal)
    if (error instanceof SseSyntaxError) return streamInterrupted(this.target, error.message)
    return transportError(error, this.target, 'stream')
  }

  /** Hands the next event, the end, or the failure to a consumer already waiting for one. */
  private wake(): void {
    const resolve = this.waiting
    const reject = this.failWaiting
    if (resolve === undefined || reject === undefined) return
    const step = this.step()
    if (step === undefined) return
    this.waiting = undefined
    this.failWaiting = undefined
    if (step instanceof Error) reject(step)
    else resolve(step)
  }

  private drain(): void {
    // Reading the little that follows `[DONE]` keeps the socket reusable by the pool.
    if (this.body.isPaused()) this.body.resume()
  }

  private finish(dropConnection: boolean): void {
    if (this.done) return
    this.done = true
    this.queue = []
    this.head = 0
    if (dropConnection) this.body.destroy()
  }

  private stop(error: Error): Error {
    this.done = true
    this.queue = []
    this.head = 0
    return error
  }
}

/** Anthropic's last event; servers that omit `event:` lines still name it in the data's `type`. */
function isMessageStop(event: SseEvent): boolean {
  if (event.event !== undefined) return event.event === 'message_stop'
  if (!event.data.includes('message_stop')) return false
  try {
    return (JSON.parse(event.data) as { type?: unknown }).type === 'message_stop'
  } catch {
    return false
  }
}
