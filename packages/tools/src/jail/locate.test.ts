import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ToolError } from '../result.js'
import { locate } from './locate.js'

function rejects(input: string, root = '/workspace'): string {
  try {
    locate(input, root)
  } catch (error) {
    assert.ok(error instanceof ToolError)
    return error.message
  }
  assert.fail(`accepted ${JSON.stringify(input)}`)
}

describe('locate', () => {
  it('maps relative and absolute paths under the display root', () => {
    assert.deepEqual(locate('a/b.txt', '/workspace'), {
      display: '/workspace/a/b.txt',
      parts: ['a', 'b.txt'],
    })
    assert.deepEqual(locate('/workspace/a//./b.txt', '/workspace').parts, ['a', 'b.txt'])
    assert.deepEqual(locate('/workspace', '/workspace').parts, [])
    assert.deepEqual(locate('/workspace/', '/workspace').parts, [])
    assert.deepEqual(locate('.', '/workspace').parts, [])
    assert.deepEqual(locate('a/../b', '/workspace').parts, ['b'])
    assert.deepEqual(locate('/etc/x', '/').parts, ['etc', 'x'])
  })

  it('keeps names that only look like traversal', () => {
    assert.deepEqual(locate('%2e%2e/x', '/workspace').parts, ['%2e%2e', 'x'])
    assert.deepEqual(locate('...', '/workspace').parts, ['...'])
    assert.deepEqual(locate('..\\x', '/workspace').parts, ['..\\x'])
    assert.deepEqual(locate('~/x', '/workspace').parts, ['~', 'x'])
  })

  it('rejects escapes with a message naming the root', () => {
    assert.match(rejects('../x'), /outside \/workspace/)
    assert.match(rejects('..'), /outside/)
    assert.match(rejects('a/../../x'), /outside/)
    assert.match(rejects('/etc/passwd'), /outside/)
    assert.match(rejects('/workspace/../etc'), /outside/)
    assert.match(rejects('/workspacex/a'), /outside/)
    assert.match(rejects('/'), /outside/)
  })

  it('rejects NUL, control characters, empty and over-long paths', () => {
    assert.match(rejects('a\0b'), /NUL/)
    assert.match(rejects('a\nb'), /control/)
    assert.match(rejects('a\u001bb'), /control/)
    assert.match(rejects(''), /empty/)
    assert.match(rejects('a/'.repeat(2100)), /too long/)
    assert.match(rejects('x'.repeat(256)), /longer than 255/)
    assert.match(rejects('é'.repeat(128)), /longer than 255/)
  })
})
