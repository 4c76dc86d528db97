import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { fails, type Sandbox, sandbox } from './test-support.js'

let box: Sandbox

beforeEach(() => {
  box = sandbox()
})
afterEach(() => box.cleanup())

describe('malformed input', () => {
  it('refuses input that is not an object', async () => {
    for (const input of [null, 42, 'view', ['view'], undefined]) {
      const out = await fails(box.tool, input)
      assert.match(out, /^Error: input must be a JSON object, got /)
    }
  })

  it('refuses an unknown or missing command', async () => {
    assert.equal(
      await fails(box.tool, { command: 'delete', path: 'a' }),
      'Error: command must be one of view, create, replace, insert, undo; got "delete"',
    )
    assert.match(await fails(box.tool, { path: 'a' }), /^Error: command must be one of /)
  })

  it('names a missing argument', async () => {
    assert.equal(
      await fails(box.tool, { command: 'view' }),
      'Error: view needs the argument "path"',
    )
    assert.equal(
      await fails(box.tool, { command: 'create', path: 'a.txt' }),
      'Error: create needs the argument "content"',
    )
    assert.equal(
      await fails(box.tool, { command: 'replace', path: 'a.txt', old_text: 'x' }),
      'Error: replace needs the argument "new_text"',
    )
    assert.equal(
      await fails(box.tool, { command: 'insert', path: 'a.txt', text: 'x' }),
      'Error: insert needs the argument "after_line"',
    )
  })

  it('names an argument of the wrong type', async () => {
    assert.equal(
      await fails(box.tool, { command: 'view', path: 7 }),
      'Error: "path" must be a string, got a number (7)',
    )
    assert.match(
      await fails(box.tool, { command: 'view', path: 'a', range: [1] }),
      /^Error: "range" must be an array of 2 integers/,
    )
    assert.match(
      await fails(box.tool, { command: 'insert', path: 'a', after_line: 1.5, text: 'x' }),
      /^Error: "after_line" must be an integer, got a number \(1\.5\)/,
    )
    assert.match(
      await fails(box.tool, { command: 'create', path: 'a', content: { text: 'x' } }),
      /^Error: "content" must be a string, got an object/,
    )
  })

  it('refuses an argument the command does not take', async () => {
    assert.match(
      await fails(box.tool, { command: 'view', path: 'a', old_text: 'x' }),
      /^Error: unknown argument "old_text" for view/,
    )
  })

  it('refuses an empty path', async () => {
    assert.equal(await fails(box.tool, { command: 'view', path: '' }), 'Error: the path is empty')
  })

  it('handles a 10 MB old_text that is not in the file, without echoing it', async () => {
    writeFileSync(box.at('a.txt'), 'small\n')
    const huge = 'q'.repeat(10 * 1024 * 1024)
    const out = await fails(box.tool, {
      command: 'replace',
      path: 'a.txt',
      old_text: huge,
      new_text: 'x',
    })
    assert.ok(out.length < 500)
    assert.match(out, /^Error: old_text not found in \/workspace\/a\.txt \(found 0 times\)/)
    assert.equal(readFileSync(box.at('a.txt'), 'utf8'), 'small\n')
  })
})
