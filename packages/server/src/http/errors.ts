import { ApiError } from '../errors.js'

/** The code of an error fastify raised while reading a request (`FST_ERR_...`), if it is one. */
function frameworkCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined
  const code: unknown = (error as { code?: unknown }).code
  return typeof code === 'string' && code.startsWith('FST_') ? code : undefined
}

export function unsupportedMediaType(): ApiError {
  return new ApiError(
    415,
    'invalid_request_error',
    'unsupported_media_type',
    'Content-Type must be application/json',
  )
}

export function invalidJson(detail: string): ApiError {
  return new ApiError(400, 'invalid_request_error', 'invalid_json', detail)
}

export function notFound(method: string, path: string): ApiError {
  return new ApiError(
    404,
    'not_found_error',
    'not_found',
    `There is no ${method} ${path.slice(0, 200)}. The endpoints are POST /v1/chat/completions, POST /v1/messages, GET /v1/models, GET /healthz and GET /metrics.`,
  )
}

export function methodNotAllowed(
  method: string,
  path: string,
  allowed: readonly string[],
): ApiError {
  return new ApiError(
    405,
    'invalid_request_error',
    'method_not_allowed',
    `${path} does not take ${method.slice(0, 20)}; use ${allowed.join(' or ')}`,
  )
}

export function internalError(): ApiError {
  return new ApiError(
    500,
    'api_error',
    'internal_error',
    'The server failed unexpectedly. Try again; if it persists, report the request id.',
  )
}

/**
 * The API error for what the framework rejected while reading the request (body size, media type,
 * JSON syntax, URL), or null for anything unexpected: a bug, reported as `internal_error`.
 */
export function requestError(error: unknown, bodyLimitBytes: number): ApiError | null {
  if (error instanceof ApiError) return error
  const code = frameworkCode(error)
  if (code === undefined) return null
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(
        413,
        'request_too_large',
        'request_too_large',
        `The request body is larger than the limit of ${bodyLimitBytes} bytes`,
      )
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType()
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidJson('The request body is empty; send a JSON object')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(
        400,
        'invalid_request_error',
        'invalid_request',
        'The body length does not match Content-Length',
      )
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'invalid_request_error', 'invalid_request', 'The URL is malformed')
    default: {
      const status: unknown = (error as { statusCode?: unknown }).statusCode
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return new ApiError(
          status,
          'invalid_request_error',
          'invalid_request',
          'The request is malformed',
        )
      }
      return null
    }
  }
}
