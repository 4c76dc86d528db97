import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import { ApiError, envelope } from '../errors.js'
import { newRequestId } from './request-id.js'

/**
 * Answers a request Node could not even parse (bad request line, headers too large, too slow),
 * still in the error envelope with a request id, then drops the connection as Node does.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  if (socket.writable) {
    const id = newRequestId()
    const api = clientError(error.code)
    const body = JSON.stringify(envelope(api, id))
    socket.write(
      `HTTP/1.1 ${api.status} ${STATUS_CODES[api.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${id}\r\nrequest-id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy(error)
}

function clientError(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(
      431,
      'request_too_large',
      'request_too_large',
      'The request headers are too large',
    )
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(
      408,
      'timeout_error',
      'request_timeout',
      'The request was not received in time',
    )
  }
  return new ApiError(
    400,
    'invalid_request_error',
    'invalid_request',
    'The request is not valid HTTP',
  )
}
