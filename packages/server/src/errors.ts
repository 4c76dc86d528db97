/** The `type` of an error envelope: the broad class a client can branch on. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'upstream_error'
  | 'api_error'

/**
 * An error the API reports in the unified envelope. `code` is the stable, specific reason
 * (`unknown_tool_type`); `param` names the request field at fault (`tools[2].type`) or is null.
 */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message)
  }
}

/** The body of every error response, on every endpoint, and of mid-stream error events. */
export interface ErrorEnvelope {
  type: 'error'
  error: { type: ErrorType; code: string; message: string; param: string | null }
  request_id: string
}

export function envelope(error: ApiError, requestId: string): ErrorEnvelope {
  return {
    type: 'error',
    error: { type: error.type, code: error.code, message: error.message, param: error.param },
    request_id: requestId,
  }
}

/** The header that carries the request id on every response. */
export const REQUEST_ID_HEADER = 'x-request-id'
