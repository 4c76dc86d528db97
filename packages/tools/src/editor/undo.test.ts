import assert from 'node:assert/strict'
import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { TextEditorTool } from './editor.js'
import { History, type PriorVersion } from './history.js'
import { fails, ok, type Sandbox, sandbox } from './test-support.js'

let box: Sandbox

beforeEach(() => {
  box = sandbox()
})
afterEach(() => box.cleanup())

const read = (name: string) => readFileSync(box.at(name), 'utf8')

describe('undo', () => {
  it('removes a file that create made', async () => {
    await ok(box.tool, { command: 'create', path: 'sub/new.txt', content: 'hello\n' })
    const out = await ok(box.tool, { command: 'undo', path: 'sub/new.txt' })
    assert.equal(
      out,
      'Undid the creation of /workspace/sub/new.txt: removed the file. No earlier change is recorded.',
    )
    assert.equal(existsSync(box.at('sub/new.txt')), false)
  })

  it('restores the version before a replace, with its mode', async () => {
    writeFileSync(box.at('a.txt'), 'one\ntwo\n')
    chmodSync(box.at('a.txt'), 0o755)
    await ok(box.tool, { command: 'replace', path: 'a.txt', old_text: 'two', new_text: 'TWO' })
    const out = await ok(box.tool, { command: 'undo', path: 'a.txt' })
    assert.equal(
      out,
      'Restored the previous version of /workspace/a.txt (2 lines). No earlier change is recorded.',
    )
    assert.equal(read('a.txt'), 'one\ntwo\n')
    assert.equal(statSync(box.at('a.txt')).mode & 0o7777, 0o755)
  })

  it('restores the version before an insert', async () => {
    writeFileSync(box.at('a.txt'), 'one\r\ntwo')
    await ok(box.tool, { command: 'insert', path: 'a.txt', after_line: 1, text: 'x' })
    assert.equal(read('a.txt'), 'one\r\nx\r\ntwo')
    await ok(box.tool, { command: 'undo', path: 'a.txt' })
    assert.equal(read('a.txt'), 'one\r\ntwo')
  })

  it('undoes several changes newest first, down to the create', async () => {
    await ok(box.tool, { command: 'create', path: 'a.txt', content: 'v1\n' })
    await ok(box.tool, { command: 'replace', path: 'a.txt', old_text: 'v1', new_text: 'v2' })
    await ok(box.tool, { command: 'insert', path: 'a.txt', after_line: 1, text: 'v3' })
    assert.equal(read('a.txt'), 'v2\nv3\n')
    assert.match(
      await ok(box.tool, { command: 'undo', path: 'a.txt' }),
      /2 earlier changes can still be undone\.$/,
    )
    assert.equal(read('a.txt'), 'v2\n')
    assert.match(
      await ok(box.tool, { command: 'undo', path: 'a.txt' }),
      /1 earlier change can still be undone\.$/,
    )
    assert.equal(read('a.txt'), 'v1\n')
    await ok(box.tool, { command: 'undo', path: 'a.txt' })
    assert.equal(existsSync(box.at('a.txt')), false)
    assert.equal(
      await fails(box.tool, { command: 'undo', path: 'a.txt' }),
      'Error: no change to undo for /workspace/a.txt',
    )
  })

  it('says when there is nothing to undo', async () => {
    writeFileSync(box.at('a.txt'), 'x\n')
    assert.equal(
      await fails(box.tool, { command: 'undo', path: 'a.txt' }),
      'Error: no change to undo for /workspace/a.txt',
    )
  })

  it('does not record a failed edit', async () => {
    writeFileSync(box.at('a.txt'), 'x\n')
    await fails(box.tool, { command: 'replace', path: 'a.txt', old_text: 'nope', new_text: 'y' })
    await fails(box.tool, { command: 'create', path: 'a.txt', content: 'y' })
    await fails(box.tool, { command: 'undo', path: 'a.txt' })
  })

  it('keeps at most maxHistory versions per file', async () => {
    const tool = box.restart({ maxHistory: 3 })
    writeFileSync(box.at('a.txt'), '0\n')
    for (let i = 1; i <= 5; i++) {
      await ok(tool, { command: 'replace', path: 'a.txt', old_text: `${i - 1}`, new_text: `${i}` })
    }
    for (const expected of ['4\n', '3\n', '2\n']) {
      await ok(tool, { command: 'undo', path: 'a.txt' })
      assert.equal(read('a.txt'), expected)
    }
    await fails(tool, { command: 'undo', path: 'a.txt' })
  })

  it('keeps the oldest version when a write fails after its history was saved', async () => {
    const tool = box.restart({ maxHistory: 3 })
    writeFileSync(box.at('a.txt'), '0\n')
    for (let i = 1; i <= 3; i++) {
      await ok(tool, { command: 'replace', path: 'a.txt', old_text: `${i - 1}`, new_text: `${i}` })
    }
    // Another process rewrites the file between the editor's read and its write.
    const push = History.prototype.push
    History.prototype.push = async function (path: string, prior: PriorVersion, after: string) {
      const seq = await push.call(this, path, prior, after)
      writeFileSync(box.at('a.txt'), 'elsewhere, longer\n')
      return seq
    }
    try {
      assert.match(
        await fails(tool, { command: 'replace', path: 'a.txt', old_text: '3', new_text: '4' }),
        /changed while it was being edited/,
      )
    } finally {
      History.prototype.push = push
    }
    assert.equal(read('a.txt'), 'elsewhere, longer\n')
    writeFileSync(box.at('a.txt'), '3\n')
    for (const expected of ['2\n', '1\n', '0\n']) {
      await ok(tool, { command: 'undo', path: 'a.txt' })
      assert.equal(read('a.txt'), expected)
    }
    await fails(tool, { command: 'undo', path: 'a.txt' })
  })

  it('survives a new tool instance on the same root', async () => {
    writeFileSync(box.at('a.txt'), 'before\n')
    await ok(box.tool, { command: 'replace', path: 'a.txt', old_text: 'before', new_text: 'after' })
    const restarted = box.restart()
    await ok(restarted, { command: 'undo', path: './a.txt' })
    assert.equal(read('a.txt'), 'before\n')
  })

  it('keeps history in a private folder, one subfolder per file', async () => {
    await ok(box.tool, { command: 'create', path: 'a.txt', content: 'x\n' })
    await ok(box.tool, { command: 'replace', path: 'a.txt', old_text: 'x', new_text: 'y' })
    assert.equal(statSync(box.history).mode & 0o777, 0o700)
    const [folder, ...others] = readdirSync(box.history)
    assert.equal(others.length, 0)
    assert.match(folder ?? '', /^[0-9a-f]{64}$/)
    const entries = readdirSync(join(box.history, folder ?? '')).sort()
    assert.deepEqual(entries, [
      '000000000001.absent.json',
      '000000000001.claim',
      '000000000002.claim',
      '000000000002.snapshot',
      '000000000002.snapshot.json',
    ])
    assert.equal(
      readFileSync(join(box.history, folder ?? '', '000000000002.snapshot'), 'utf8'),
      'x\n',
    )
  })

  it('refuses to discard a change made outside the editor', async () => {
    writeFileSync(box.at('a.txt'), 'one\n')
    await ok(box.tool, { command: 'replace', path: 'a.txt', old_text: 'one', new_text: 'two' })
    writeFileSync(box.at('a.txt'), 'three\n')
    const out = await fails(box.tool, { command: 'undo', path: 'a.txt' })
    assert.match(
      out,
      /^Error: \/workspace\/a\.txt was changed outside the editor after its last edit/,
    )
    assert.equal(read('a.txt'), 'three\n')
  })

  it('refuses to undo over a file that became binary', async () => {
    writeFileSync(box.at('a.txt'), 'one\n')
    await ok(box.tool, { command: 'replace', path: 'a.txt', old_text: 'one', new_text: 'two' })
    writeFileSync(box.at('a.txt'), Buffer.from([1, 0, 2]))
    assert.equal(
      await fails(box.tool, { command: 'undo', path: 'a.txt' }),
      'Error: /workspace/a.txt is a binary file; the editor only handles UTF-8 text',
    )
  })

  it('recreates a file deleted after its edit', async () => {
    writeFileSync(box.at('a.txt'), 'one\n')
    await ok(box.tool, { command: 'replace', path: 'a.txt', old_text: 'one', new_text: 'two' })
    await ok(box.tool, { command: 'create', path: 'b.txt', content: 'b' })
    // Deleting and undoing the create of b leaves a's history alone.
    await ok(box.tool, { command: 'undo', path: 'b.txt' })
    rmSync(box.at('a.txt'))
    await ok(box.tool, { command: 'undo', path: 'a.txt' })
    assert.equal(read('a.txt'), 'one\n')
  })

  it('keeps history under the home folder by default, per workspace', async () => {
    const home = process.env.HOME
    process.env.HOME = box.outside
    try {
      const tool = new TextEditorTool({ root: box.root, displayRoot: '/workspace' })
      await ok(tool, { command: 'create', path: 'a.txt', content: 'x\n' })
      const base = join(box.outside, '.local/state/syntic/editor-history')
      const [workspace, ...others] = readdirSync(base)
      assert.equal(others.length, 0)
      assert.match(workspace ?? '', /^[0-9a-f]{16}$/)
      assert.equal(statSync(join(base, workspace ?? '')).mode & 0o777, 0o700)
      await ok(tool, { command: 'undo', path: 'a.txt' })
    } finally {
      process.env.HOME = home
    }
  })

  it('skips a damaged history entry', async () => {
    writeFileSync(box.at('a.txt'), 'one\n')
    await ok(box.tool, { command: 'replace', path: 'a.txt', old_text: 'one', new_text: 'two' })
    await ok(box.tool, { command: 'replace', path: 'a.txt', old_text: 'two', new_text: 'three' })
    const [folder] = readdirSync(box.history)
    writeFileSync(join(box.history, folder ?? '', '000000000002.snapshot.json'), '{broken')
    // The newest entry is unreadable, and the older one no longer matches the file.
    const out = await fails(box.tool, { command: 'undo', path: 'a.txt' })
    assert.match(out, /was changed outside the editor/)
    assert.equal(read('a.txt'), 'three\n')
  })
})
