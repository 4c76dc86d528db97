import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { errors } from 'undici'
import { ApiError } from '../errors.js'
import { statusError, transportError, type UpstreamTarget, upstreamMessage } from './errors.js'

const target: UpstreamTarget = {
  origin: 'http://10.0.0.5:8000',
  apiKey: 'sk-upstream-secret',
  timeoutMs: 1500,
  connectTimeoutMs: 700,
}

function expectApiError(error: Error, status: number, type: string, code: string): ApiError {
  assert.ok(error instanceof ApiError, `${error.name}: ${error.message}`)
  assert.deepEqual([error.status, error.type, error.code], [status, type, code])
  assert.doesNotMatch(error.message, /sk-upstream-secret/)
  return error
}

describe('upstream error mapping', () => {
  it('finds the upstream message in each known body shape', () => {
    assert.equal(upstreamMessage('{"error":{"message":"too long","type":"x"}}'), 'too long')
    assert.equal(
      upstreamMessage('{"type":"error","error":{"type":"o","message":"Overloaded"}}'),
      'Overloaded',
    )
    assert.equal(upstreamMessage('{"error":"model \\"x\\" not found"}'), 'model "x" not found')
    assert.equal(upstreamMessage('{"detail":"Not Found"}'), 'Not Found')
    assert.equal(upstreamMessage('{"message":"bad"}'), 'bad')
    assert.equal(upstreamMessage('{"other":1}'), '{"other":1}')
    assert.equal(upstreamMessage('{broken'), '{broken')
    assert.equal(upstreamMessage('  upstream\n connect   error  '), 'upstream connect error')
    assert.equal(upstreamMessage(''), '(no error message)')
  })

  it('cuts long messages and redacts the key wherever the upstream echoes it', () => {
    const long = upstreamMessage('x'.repeat(10_000))
    assert.equal(long.length, 501)
    assert.ok(long.endsWith('…'))
    assert.equal(
      upstreamMessage('{"error":{"message":"bad key sk-k1"}}', 'sk-k1'),
      'bad key [redacted]',
    )
  })

  it('maps upstream statuses', () => {
    const body = '{"error":{"message":"upstream says sk-upstream-secret is wrong"}}'
    let error = expectApiError(
      statusError(400, body, undefined, target),
      400,
      'invalid_request_error',
      'upstream_error',
    )
    assert.match(error.message, /upstream says \[redacted\] is wrong/)
    error = expectApiError(
      statusError(401, body, undefined, target),
      502,
      'upstream_error',
      'upstream_error',
    )
    assert.match(error.message, /rejected this server's credentials \(401\)/)
    assert.doesNotMatch(error.message, /upstream says/)
    expectApiError(
      statusError(403, body, undefined, target),
      502,
      'upstream_error',
      'upstream_error',
    )
    error = expectApiError(
      statusError(404, body, undefined, target),
      502,
      'upstream_error',
      'upstream_error',
    )
    assert.match(error.message, /URL or model mapping/)
    expectApiError(
      statusError(408, body, undefined, target),
      504,
      'timeout_error',
      'upstream_timeout',
    )
    expectApiError(
      statusError(413, body, undefined, target),
      413,
      'request_too_large',
      'upstream_error',
    )
    expectApiError(
      statusError(422, body, undefined, target),
      422,
      'invalid_request_error',
      'upstream_error',
    )
    error = expectApiError(
      statusError(429, body, '7', target),
      429,
      'rate_limit_error',
      'upstream_rate_limited',
    )
    assert.match(error.message, /retry after 7 s/)
    error = expectApiError(
      statusError(429, body, 'Wed, 21 Oct 2025 07:28:00 GMT', target),
      429,
      'rate_limit_error',
      'upstream_rate_limited',
    )
    assert.doesNotMatch(error.message, /retry after/)
    for (const status of [500, 502, 503, 529, 302]) {
      error = expectApiError(
        statusError(status, body, undefined, target),
        502,
        'upstream_error',
        'upstream_error',
      )
      assert.match(error.message, new RegExp(`answered ${status}: upstream says`))
    }
  })

  it('maps transport failures by phase, quoting only the origin and the error code', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:8000'), {
      code: 'ECONNREFUSED',
    })
    let error = expectApiError(
      transportError(refused, target, 'request'),
      502,
      'upstream_error',
      'upstream_unreachable',
    )
    assert.equal(
      error.message,
      'the upstream model server http://10.0.0.5:8000 is unreachable (ECONNREFUSED)',
    )
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND llm.internal'), {
      code: 'ENOTFOUND',
    })
    expectApiError(
      transportError(dns, target, 'request'),
      502,
      'upstream_error',
      'upstream_unreachable',
    )
    const happyEyeballs = new AggregateError([refused, refused], 'connect failed')
    expectApiError(
      transportError(happyEyeballs, target, 'request'),
      502,
      'upstream_error',
      'upstream_unreachable',
    )
    const wrapped = new TypeError('fetch failed', { cause: refused })
    expectApiError(
      transportError(wrapped, target, 'request'),
      502,
      'upstream_error',
      'upstream_unreachable',
    )

    error = expectApiError(
      transportError(new errors.ConnectTimeoutError(), target, 'request'),
      504,
      'timeout_error',
      'upstream_timeout',
    )
    assert.match(error.message, /within 700 ms/)
    error = expectApiError(
      transportError(new errors.HeadersTimeoutError(), target, 'request'),
      504,
      'timeout_error',
      'upstream_timeout',
    )
    assert.match(error.message, /within 1500 ms/)
    expectApiError(
      transportError(new errors.BodyTimeoutError(), target, 'stream'),
      504,
      'timeout_error',
      'upstream_timeout',
    )

    const socket = new errors.SocketError('other side closed')
    expectApiError(
      transportError(socket, target, 'request'),
      502,
      'upstream_error',
      'upstream_unreachable',
    )
    expectApiError(transportError(socket, target, 'body'), 502, 'upstream_error', 'upstream_error')
    expectApiError(
      transportError(socket, target, 'stream'),
      502,
      'upstream_error',
      'upstream_stream_interrupted',
    )
    const parser = Object.assign(new Error('Response does not match the HTTP/1.1 protocol'), {
      code: 'HPE_INVALID_CONSTANT',
    })
    error = expectApiError(
      transportError(parser, target, 'request'),
      502,
      'upstream_error',
      'upstream_error',
    )
    assert.match(error.message, /malformed HTTP/)
  })

  it('passes programming errors and ApiErrors through unchanged', () => {
    const bug = new TypeError('x is not a function')
    assert.equal(transportError(bug, target, 'request'), bug)
    const api = new ApiError(400, 'invalid_request_error', 'bad', 'bad')
    assert.equal(transportError(api, target, 'stream'), api)
    assert.equal(transportError('weird', target, 'request').message, 'weird')
  })
})
