import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ApiError } from '../errors.js'
import { ModelMap } from './model-map.js'

describe('ModelMap', () => {
  it('passes every name through when empty', () => {
    const map = new ModelMap({})
    assert.equal(map.upstreamId('anything at all'), 'anything at all')
    assert.deepEqual(map.names, [])
  })

  it('maps known names and refuses others, naming the available ones', () => {
    const map = new ModelMap({ 'Syntic Code': 'qwen2.5-coder-32b', 'Amara S1.2': 'llama3.1:8b' })
    assert.equal(map.upstreamId('Syntic Code'), 'qwen2.5-coder-32b')
    assert.throws(
      () => map.upstreamId('gpt-4o'),
      (error: unknown) => {
        assert.ok(error instanceof ApiError)
        assert.equal(error.status, 404)
        assert.equal(error.type, 'not_found_error')
        assert.equal(error.code, 'model_not_found')
        assert.equal(error.param, 'model')
        assert.match(error.message, /"gpt-4o".*"Syntic Code", "Amara S1.2"/)
        return true
      },
    )
  })

  it('does not find inherited properties and cuts hostile names in the message', () => {
    const map = new ModelMap({ 'Syntic Code': 'x' })
    assert.throws(() => map.upstreamId('constructor'), ApiError)
    assert.throws(() => map.upstreamId('__proto__'), ApiError)
    try {
      map.upstreamId('m'.repeat(100_000))
    } catch (error) {
      assert.ok((error as Error).message.length < 400)
    }
  })
})
