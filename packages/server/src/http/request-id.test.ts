import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { newRequestId } from './request-id.js'

describe('newRequestId', () => {
  it('is req_ and 24 base-62 characters, never repeating', () => {
    const ids = new Set<string>()
    for (let i = 0; i < 5000; i++) {
      const id = newRequestId()
      assert.match(id, /^req_[0-9A-Za-z]{24}$/)
      ids.add(id)
    }
    assert.equal(ids.size, 5000)
  })

  it('uses the whole alphabet', () => {
    const seen = new Set<string>()
    for (let i = 0; i < 2000; i++) for (const c of newRequestId().slice(4)) seen.add(c)
    assert.equal(seen.size, 62)
  })
})
