import { ApiError } from '../errors.js'

/** An error the client should retry after `retryAfterSeconds` (sent as `Retry-After`). */
export class RetryableApiError extends ApiError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(status, 'api_error', code, message)
  }
}

/** 503 `overloaded`: this server runs as many sandboxes as it may. */
export function overloaded(retryAfterSeconds: number): RetryableApiError {
  return new RetryableApiError(
    503,
    'overloaded',
    `No container capacity right now; retry after ${retryAfterSeconds} seconds, or reuse a container with {"container": {"id": "cntr_..."}}.`,
    retryAfterSeconds,
  )
}

/** 404 `container_not_found`: the same for unknown, expired and other workspaces' containers. */
export function containerNotFound(param: string): ApiError {
  return new ApiError(
    404,
    'not_found_error',
    'container_not_found',
    'No live container with this id in your workspace: it may have expired (containers are removed when idle, and after a maximum lifetime). Use "container": "auto" for a fresh one.',
    param,
  )
}

/** 404 `file_not_found` for an id in the tool's `files`. */
export function fileNotFound(param: string): ApiError {
  return new ApiError(
    404,
    'not_found_error',
    'file_not_found',
    'No file with this id in your workspace; upload it with POST /v1/files (purpose "code_input") and send the id it returns.',
    param,
  )
}

/**
 * 400 `invalid_file_purpose` for an id in the tool's `files` naming a file of the workspace that
 * is not `code_input` (a container's output, say): it exists, so 404 would mislead.
 */
export function invalidFilePurpose(param: string, purpose: string): ApiError {
  return new ApiError(
    400,
    'invalid_request_error',
    'invalid_file_purpose',
    `This file's purpose is "${purpose}"; code execution takes files uploaded with purpose "code_input". Download it and upload it again with that purpose.`,
    param,
  )
}

/** 503 when the server has no working sandbox driver (an operator problem). */
export function sandboxUnavailable(reason: string): ApiError {
  return new ApiError(
    503,
    'api_error',
    'sandbox_unavailable',
    `Code execution is not available on this server: ${reason}`,
  )
}
