import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ApiError } from '../errors.js'
import { apiKeyOf } from './auth.js'

function code(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    assert.ok(error instanceof ApiError)
    assert.equal(error.status, 401)
    assert.equal(error.type, 'authentication_error')
    return error.code
  }
  assert.fail('expected an ApiError')
}

describe('apiKeyOf', () => {
  it('reads Bearer (any case) and x-api-key, preferring Authorization', () => {
    assert.equal(apiKeyOf({ authorization: 'Bearer sk_live_abc' }), 'sk_live_abc')
    assert.equal(apiKeyOf({ authorization: 'bearer   sk_live_abc  ' }), 'sk_live_abc')
    assert.equal(apiKeyOf({ 'x-api-key': 'sk_live_xyz' }), 'sk_live_xyz')
    assert.equal(
      apiKeyOf({ authorization: 'Bearer sk_live_abc', 'x-api-key': 'sk_live_xyz' }),
      'sk_live_abc',
    )
  })

  it('reports a missing key as missing_api_key', () => {
    assert.equal(
      code(() => apiKeyOf({})),
      'missing_api_key',
    )
    assert.equal(
      code(() => apiKeyOf({ authorization: '' })),
      'missing_api_key',
    )
    assert.equal(
      code(() => apiKeyOf({ authorization: 'Bearer' })),
      'missing_api_key',
    )
    assert.equal(
      code(() => apiKeyOf({ authorization: 'Bearer    ' })),
      'missing_api_key',
    )
    assert.equal(
      code(() => apiKeyOf({ 'x-api-key': '' })),
      'missing_api_key',
    )
  })

  it('reports other schemes and oversized keys as invalid_api_key', () => {
    assert.equal(
      code(() => apiKeyOf({ authorization: 'Basic dXNlcjpwYXNz' })),
      'invalid_api_key',
    )
    assert.equal(
      code(() => apiKeyOf({ authorization: 'sk_live_abc' })),
      'invalid_api_key',
    )
    assert.equal(
      code(() => apiKeyOf({ authorization: `Bearer sk_live_${'a'.repeat(10_000)}` })),
      'invalid_api_key',
    )
  })
})
