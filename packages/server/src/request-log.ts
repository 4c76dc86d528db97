/** Where log lines go: process.stdout in production, anything with `write` in tests. */
export interface LogSink {
  write(line: string): unknown
}

/**
 * One request as logged. Only metadata: never keys, bodies or message content. `own_ms` is the
 * total time minus `upstream_ms`, the time spent waiting on the upstream model.
 */
export interface RequestLogRecord {
  ts: string
  id: string
  method: string
  path: string
  org: string | null
  workspace: string | null
  model: string | null
  status: number
  stream: boolean
  upstream_ms: number | null
  own_ms: number
  error_code: string | null
}

// Client-supplied strings are cut so that a hostile request cannot blow up one log line.
const MAX_PATH_CHARS = 256
const MAX_MODEL_CHARS = 128

/** The request's path without its query string (which could carry anything), cut to length. */
export function loggedPath(url: string): string {
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  return path.length > MAX_PATH_CHARS ? path.slice(0, MAX_PATH_CHARS) : path
}

export function loggedModel(model: string): string {
  return model.length > MAX_MODEL_CHARS ? model.slice(0, MAX_MODEL_CHARS) : model
}

/** Milliseconds with microsecond resolution: enough to see our own sub-millisecond time. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000
}

export function writeRequestLog(sink: LogSink, record: RequestLogRecord): void {
  sink.write(`${JSON.stringify(record)}\n`)
}

/**
 * An unexpected exception, for the operator: the stack goes to the log, never to the client,
 * who only sees `internal_error` and the request id to quote.
 */
export function writeErrorLog(sink: LogSink, requestId: string, error: unknown): void {
  const detail =
    error instanceof Error
      ? { error: error.name, message: error.message, stack: error.stack ?? null }
      : { error: 'non-error thrown', message: String(error), stack: null }
  sink.write(
    `${JSON.stringify({ ts: new Date().toISOString(), level: 'error', id: requestId, ...detail })}\n`,
  )
}
