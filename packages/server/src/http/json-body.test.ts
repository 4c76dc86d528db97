import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ApiError } from '../errors.js'
import { parseJsonBody } from './json-body.js'

function invalid(text: string): string {
  try {
    parseJsonBody(text)
  } catch (error) {
    assert.ok(error instanceof ApiError)
    assert.equal(error.status, 400)
    assert.equal(error.code, 'invalid_json')
    return error.message
  }
  assert.fail(`expected ${JSON.stringify(text)} to be refused`)
}

describe('parseJsonBody', () => {
  it('parses JSON of any shape (the validators judge the shape)', () => {
    assert.deepEqual(parseJsonBody('{"model":"m","messages":[]}'), { model: 'm', messages: [] })
    assert.deepEqual(parseJsonBody('[1]'), [1])
    assert.equal(parseJsonBody('"__proto__"'), '__proto__')
  })

  it('explains syntax errors', () => {
    assert.match(invalid('{"model": '), /not valid JSON/)
    assert.match(invalid("{'model': 1}"), /not valid JSON/)
    assert.match(invalid(''), /empty/)
  })

  it('refuses __proto__ keys, plain or escaped, but not as values', () => {
    assert.match(invalid('{"a": {"__proto__": {"admin": true}}}'), /__proto__/)
    assert.match(invalid('{"\\u005f_proto__": 1}'), /__proto__/)
    assert.match(invalid('{"__pro\\u0074o__" : 1}'), /__proto__/)
    assert.deepEqual(parseJsonBody('{"text": "__proto__: \\"__proto__\\":"}'), {
      text: '__proto__: "__proto__":',
    })
    assert.equal(({} as Record<string, unknown>).admin, undefined)
  })
})
