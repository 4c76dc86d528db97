import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'

/**
 * A server-sent event stream on a raw response. The status line and headers go out with the
 * first event, so an error before any event can still be a normal JSON error response. Writes
 * wait for `drain` when the client reads slower than the model writes.
 */
export class SseResponse {
  private headersWritten = false
  private corked = false
  private readonly uncork = () => {
    this.corked = false
    this.res.uncork()
  }

  /** `onStart` runs just before the first byte: the moment the framework must let go. */
  constructor(
    private readonly res: ServerResponse,
    private readonly headers: OutgoingHttpHeaders,
    private readonly onStart: () => void,
  ) {}

  /** True once anything was sent: errors from now on must go in-band. */
  get started(): boolean {
    return this.headersWritten
  }

  /** False when the client has gone away: stop producing. */
  get open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded
  }

  /** Writes one or more complete events (`data: ...\n\n`); resolves when the client can take more. */
  write(text: string): Promise<void> | undefined {
    this.start()
    if (!this.corked) {
      // Events that are already here go out in one write instead of one syscall each: the
      // response is uncorked once the current run of callbacks and promise jobs is over.
      this.corked = true
      this.res.cork()
      process.nextTick(this.uncork)
    }
    if (this.res.write(text) || this.res.destroyed) return undefined
    return drained(this.res)
  }

  end(text?: string): void {
    this.start()
    this.res.end(text)
  }

  private start(): void {
    if (this.headersWritten) return
    this.onStart()
    this.res.writeHead(200, this.headers)
    this.headersWritten = true
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

/** One event of a chat completions stream: unnamed, `data:` only. */
export function chatEvent(data: string): string {
  return `data: ${data}\n\n`
}

export const CHAT_DONE = 'data: [DONE]\n\n'

/** One event of a messages stream: named after its type. */
export function messagesEvent(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`
}
