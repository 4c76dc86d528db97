/** The wire format an upstream model server speaks. */
export type UpstreamFormat = 'openai' | 'anthropic'

/** One server-sent event as received, `data` unparsed. */
export interface SseEvent {
  event?: string
  data: string
}

export interface UpstreamRequest {
  /** The request body in the upstream's own format, model already mapped to its id. */
  body: Record<string, unknown>
  stream: boolean
  /** Aborted when the client goes away; the upstream call must stop. */
  signal: AbortSignal
}

export type UpstreamResult =
  | { kind: 'json'; body: unknown }
  | { kind: 'stream'; events: AsyncIterable<SseEvent> }

/**
 * The model upstream port. `send` resolves once the upstream answered 2xx (for a stream: once the
 * headers arrived). Failures are thrown as ApiError: `upstream_unreachable` (502),
 * `upstream_timeout` (504), `upstream_error` (the upstream's 4xx status, or 502 for its 5xx, with
 * its message). A stream that breaks midway throws from its iterator the same way.
 */
export interface Upstream {
  readonly format: UpstreamFormat
  send(request: UpstreamRequest): Promise<UpstreamResult>
  /** Raw upstream data as an error message may quote it: cut short, the upstream key redacted. */
  excerpt(text: string): string
  close(): Promise<void>
}
