import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CatalogFileError, parseCatalog } from './catalog-file.js'

test('reads request-style tools and bare function objects', () => {
  const parameters = { type: 'object', properties: { id: { type: 'string' } } }
  assert.deepEqual(
    parseCatalog([
      { type: 'function', function: { name: 'a', description: 'A.', parameters } },
      { name: 'b' },
    ]),
    [{ name: 'a', description: 'A.', parameters }, { name: 'b' }],
  )
  assert.deepEqual(parseCatalog([]), [])
})

test('names what is wrong and where', () => {
  const cases: [unknown, RegExp][] = [
    [{ tools: [] }, /must be a JSON array/],
    ['x', /must be a JSON array/],
    [[{ name: 'a' }, 5], /^tool 1: expected an object/],
    [[null], /^tool 0: expected an object/],
    [[{ type: 'function', function: 'x' }], /^tool 0: "function" must be an object/],
    [[{ description: 'no name' }], /^tool 0: "name"/],
    [[{ name: '' }], /^tool 0: "name"/],
    [[{ name: 7 }], /^tool 0: "name"/],
    [[{ name: 'a', description: 5 }], /^tool 0: "description"/],
    [[{ name: 'a', parameters: [] }], /^tool 0: "parameters"/],
  ]
  for (const [value, message] of cases) {
    assert.throws(
      () => parseCatalog(value),
      (e: unknown) => e instanceof CatalogFileError && message.test(e.message),
      JSON.stringify(value),
    )
  }
})
