import { ApiError } from '../errors.js'
import { EXCERPT_CHARS, UPSTREAM_MESSAGE_CHARS } from './limits.js'

/** What an error message may say about an upstream, and what it must never say. */
export interface UpstreamTarget {
  /** `scheme://host:port` only: no credentials, path or query. */
  origin: string
  /** Redacted wherever the upstream's own text is quoted. */
  apiKey: string | undefined
  timeoutMs: number
  connectTimeoutMs: number
}

/** Where a transport failure happened: it decides which error the caller gets. */
export type FailurePhase = 'request' | 'body' | 'stream'

const INVALID_RESPONSE_CODES = new Set([
  'UND_ERR_HEADERS_OVERFLOW',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RES_EXCEEDED_MAX_SIZE',
  'UND_ERR_INFO',
])

/** What a cancelled call rejects with: the signal's own reason, as fetch and undici do. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error ? reason : new Error(String(reason))
}

export function unreachable(target: UpstreamTarget, code: string): ApiError {
  return new ApiError(
    502,
    'upstream_error',
    'upstream_unreachable',
    `the upstream model server ${target.origin} is unreachable (${code})`,
  )
}

export function streamInterrupted(target: UpstreamTarget, reason: string): ApiError {
  return new ApiError(
    502,
    'upstream_error',
    'upstream_stream_interrupted',
    `the stream from the upstream model server ${target.origin} broke off: ${reason}`,
  )
}

export function invalidReply(target: UpstreamTarget, reason: string): ApiError {
  return new ApiError(
    502,
    'upstream_error',
    'upstream_error',
    `the upstream model server ${target.origin} sent an invalid reply: ${reason}`,
  )
}

/**
 * Maps a transport failure (undici or socket error) to the ApiError the caller reports. Errors
 * without a code are programming errors and pass through unchanged. Only the error code is quoted:
 * socket messages can carry addresses and URLs.
 */
export function transportError(error: unknown, target: UpstreamTarget, phase: FailurePhase): Error {
  if (error instanceof ApiError) return error
  const code = errorCode(error)
  if (code === undefined) return error instanceof Error ? error : new Error(String(error))
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return timeout(
        `could not connect to the upstream model server ${target.origin} within ${target.connectTimeoutMs} ms`,
      )
    case 'UND_ERR_HEADERS_TIMEOUT':
      return timeout(
        `the upstream model server ${target.origin} did not answer within ${target.timeoutMs} ms`,
      )
    case 'UND_ERR_BODY_TIMEOUT':
      return timeout(
        `the upstream model server ${target.origin} sent nothing for ${target.timeoutMs} ms`,
      )
  }
  if (phase === 'stream') return streamInterrupted(target, `the connection failed (${code})`)
  if (phase === 'body') {
    return invalidReply(target, `the connection failed before the reply was complete (${code})`)
  }
  if (code.startsWith('HPE_') || INVALID_RESPONSE_CODES.has(code)) {
    return invalidReply(target, `malformed HTTP (${code})`)
  }
  return unreachable(target, code)
}

function timeout(message: string): ApiError {
  return new ApiError(504, 'timeout_error', 'upstream_timeout', message)
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const { code, errors, cause } = error as { code?: unknown; errors?: unknown; cause?: unknown }
  if (typeof code === 'string') return code
  // Happy-eyeballs connects fail with an AggregateError of one error per address tried.
  if (Array.isArray(errors) && errors.length > 0) return errorCode(errors[0])
  return cause === undefined ? undefined : errorCode(cause)
}

/**
 * Maps an upstream's non-2xx answer. An upstream 401/403/404 is this server's misconfiguration
 * (its key, URL or model mapping), not the caller's fault, so it is a 502 that says so.
 */
export function statusError(
  status: number,
  bodyText: string,
  retryAfter: string | undefined,
  target: UpstreamTarget,
): ApiError {
  const quoted = upstreamMessage(bodyText, target.apiKey)
  if (status === 401 || status === 403 || status === 407) {
    return new ApiError(
      502,
      'upstream_error',
      'upstream_error',
      `the upstream model server ${target.origin} rejected this server's credentials (${status}); the server's upstream API key needs fixing`,
    )
  }
  if (status === 429) {
    const wait = retryAfter && /^\d{1,6}$/.test(retryAfter) ? `; retry after ${retryAfter} s` : ''
    return new ApiError(
      429,
      'rate_limit_error',
      'upstream_rate_limited',
      `the upstream model server is rate limited (429)${wait}: ${quoted}`,
    )
  }
  if (status === 404) {
    return new ApiError(
      502,
      'upstream_error',
      'upstream_error',
      `the upstream model server ${target.origin} answered 404: ${quoted}; the server's upstream URL or model mapping needs fixing`,
    )
  }
  if (status === 408) {
    return timeout(`the upstream model server ${target.origin} timed out (408): ${quoted}`)
  }
  if (status === 413) {
    return new ApiError(
      413,
      'request_too_large',
      'upstream_error',
      `the upstream model server rejected the request as too large (413): ${quoted}`,
    )
  }
  if (status >= 400 && status < 500) {
    return new ApiError(
      status,
      'invalid_request_error',
      'upstream_error',
      `the upstream model server rejected the request (${status}): ${quoted}`,
    )
  }
  return new ApiError(
    502,
    'upstream_error',
    'upstream_error',
    `the upstream model server answered ${status}: ${quoted}`,
  )
}

/**
 * The upstream's own error message from its body: `{error:{message}}` (OpenAI, Anthropic, vLLM),
 * `{error:"..."}` (Ollama), `{message}` or `{detail}`, else the text itself; cut to a readable
 * length, with the upstream key redacted in case the upstream echoed it.
 */
export function upstreamMessage(bodyText: string, apiKey?: string): string {
  const text = bodyText.trim()
  let message = text
  if (text.startsWith('{')) {
    try {
      message = messageOf(JSON.parse(text)) ?? text
    } catch {
      // Not JSON after all: quote the text.
    }
  }
  message = redacted(message.replace(/\s+/g, ' ').trim(), apiKey)
  if (message.length > UPSTREAM_MESSAGE_CHARS) {
    message = `${message.slice(0, UPSTREAM_MESSAGE_CHARS)}…`
  }
  return message.length === 0 ? '(no error message)' : message
}

function messageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const { error, message, detail } = body as {
    error?: unknown
    message?: unknown
    detail?: unknown
  }
  if (typeof error === 'string') return error
  if (typeof error === 'object' && error !== null) {
    const inner = (error as { message?: unknown }).message
    if (typeof inner === 'string') return inner
  }
  if (typeof message === 'string') return message
  if (typeof detail === 'string') return detail
  return undefined
}

/**
 * A short excerpt of raw upstream data (an event, a line), JSON-quoted for an error message. The
 * key is redacted in the whole text before it is cut, so a key split by the cut cannot show either.
 */
export function upstreamExcerpt(text: string, apiKey: string | undefined): string {
  const safe = redacted(text, apiKey)
  return JSON.stringify(safe.length > EXCERPT_CHARS ? safe.slice(0, EXCERPT_CHARS) : safe)
}

function redacted(text: string, apiKey: string | undefined): string {
  return apiKey ? text.replaceAll(apiKey, '[redacted]') : text
}
