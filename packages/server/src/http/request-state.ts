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

  constructor(
    readonly id: string,
    readonly route: string,
  ) {}

  addUpstreamTime(ms: number): void {
    this.upstreamMs = (this.upstreamMs ?? 0) + ms
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    syntic: RequestState | null
  }
}
