import type { Principal } from '../store/port.js'

/** Why an upstream call was cancelled: the client closed the connection first. */
export class ClientGone extends Error {
  override name = 'ClientGone'
  constructor() {
    super('the client closed the connection')
  }
}

/** What the server learns about one request as it goes, for the log line and the metrics. */
export class RequestState {
  readonly start = performance.now()
  principal: Principal | null = null
  /** The model name the client asked for. */
  model: string | null = null
  stream = false
  /** Time spent waiting on the upstream; null when it was never called. */
  upstreamMs: number | null = null
  errorCode: string | null = null
  /** Cancels the upstream call when the client goes away. */
  upstreamCall: AbortController | null = null
  /** When the wait on the upstream now running started; null while none is. */
  private upstreamSince: number | null = null

  constructor(
    readonly id: string,
    readonly route: string,
  ) {}

  upstreamWaitStarted(): void {
    this.upstreamSince = performance.now()
  }

  /**
   * Counts the running wait on the upstream, if any. Called when the wait ends and when the client
   * leaves mid-wait (the log line is written then); whichever comes second adds nothing.
   */
  upstreamWaitEnded(): void {
    if (this.upstreamSince === null) return
    this.upstreamMs = (this.upstreamMs ?? 0) + (performance.now() - this.upstreamSince)
    this.upstreamSince = null
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    syntic: RequestState | null
  }
}
