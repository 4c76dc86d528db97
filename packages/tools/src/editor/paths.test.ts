import assert from 'node:assert/strict'
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { TextEditorTool } from './editor.js'
import { fails, ok, type Sandbox, sandbox } from './test-support.js'

let box: Sandbox

beforeEach(() => {
  box = sandbox()
  writeFileSync(join(box.outside, 'secret.txt'), 'secret\n')
})
afterEach(() => box.cleanup())

describe('paths go through the jail', () => {
  it('refuses .. that leaves the workspace', async () => {
    for (const path of ['../outside/secret.txt', '/workspace/../outside/secret.txt', 'a/../../x']) {
      const out = await fails(box.tool, { command: 'view', path })
      assert.match(out, /is outside \/workspace; use a path under \/workspace$/)
    }
    const out = await fails(box.tool, { command: 'create', path: '../escape.txt', content: 'x' })
    assert.match(out, /is outside \/workspace/)
    assert.equal(existsSync(join(box.root, '..', 'escape.txt')), false)
  })

  it('refuses absolute paths outside the display root', async () => {
    const out = await fails(box.tool, { command: 'view', path: '/etc/passwd' })
    assert.equal(out, 'Error: /etc/passwd is outside /workspace; use a path under /workspace')
  })

  it('refuses a symlink to a file outside, for view and replace', async () => {
    symlinkSync(join(box.outside, 'secret.txt'), box.at('link.txt'))
    const view = await fails(box.tool, { command: 'view', path: 'link.txt' })
    assert.match(
      view,
      /^Error: \/workspace\/link\.txt resolves outside \/workspace through a symbolic link/,
    )
    const replace = await fails(box.tool, {
      command: 'replace',
      path: 'link.txt',
      old_text: 'secret',
      new_text: 'pwned',
    })
    assert.match(replace, /resolves outside \/workspace/)
    const insert = await fails(box.tool, {
      command: 'insert',
      path: 'link.txt',
      after_line: 0,
      text: 'x',
    })
    assert.match(insert, /resolves outside \/workspace/)
    assert.equal(readFileSync(join(box.outside, 'secret.txt'), 'utf8'), 'secret\n')
  })

  it('refuses to create through a symlinked folder that points outside', async () => {
    symlinkSync(box.outside, box.at('out'))
    const out = await fails(box.tool, { command: 'create', path: 'out/new.txt', content: 'x' })
    assert.match(out, /^Error: \/workspace\/out resolves outside \/workspace/)
    assert.equal(existsSync(join(box.outside, 'new.txt')), false)
    const deeper = await fails(box.tool, { command: 'create', path: 'out/a/b.txt', content: 'x' })
    assert.match(deeper, /resolves outside/)
    assert.equal(existsSync(join(box.outside, 'a')), false)
  })

  it('refuses to list a folder symlink that points outside', async () => {
    symlinkSync(box.outside, box.at('out'))
    assert.match(await fails(box.tool, { command: 'view', path: 'out' }), /resolves outside/)
  })

  it('edits through a hard link by replacing the link, leaving the outside file alone', async () => {
    linkSync(join(box.outside, 'secret.txt'), box.at('hard.txt'))
    await ok(box.tool, {
      command: 'replace',
      path: 'hard.txt',
      old_text: 'secret',
      new_text: 'public',
    })
    assert.equal(readFileSync(box.at('hard.txt'), 'utf8'), 'public\n')
    assert.equal(readFileSync(join(box.outside, 'secret.txt'), 'utf8'), 'secret\n')
    assert.notEqual(
      lstatSync(box.at('hard.txt')).ino,
      lstatSync(join(box.outside, 'secret.txt')).ino,
    )
  })

  it('edits the target of a symlink inside the workspace and keeps the link', async () => {
    mkdirSync(box.at('real'))
    writeFileSync(box.at('real/a.txt'), 'one\n')
    symlinkSync('real/a.txt', box.at('alias.txt'))
    await ok(box.tool, { command: 'replace', path: 'alias.txt', old_text: 'one', new_text: 'two' })
    assert.equal(readlinkSync(box.at('alias.txt')), 'real/a.txt')
    assert.equal(readFileSync(box.at('real/a.txt'), 'utf8'), 'two\n')
    await ok(box.tool, { command: 'undo', path: 'alias.txt' })
    assert.equal(readFileSync(box.at('real/a.txt'), 'utf8'), 'one\n')
    assert.ok(lstatSync(box.at('alias.txt')).isSymbolicLink())
  })

  it('views through a symlink that stays inside', async () => {
    writeFileSync(box.at('a.txt'), 'hi\n')
    symlinkSync('a.txt', box.at('b.txt'))
    assert.equal(await ok(box.tool, { command: 'view', path: 'b.txt' }), '     1\thi')
  })

  it('refuses NUL and control characters in paths', async () => {
    assert.match(await fails(box.tool, { command: 'view', path: 'a\0b' }), /NUL byte/)
    assert.match(await fails(box.tool, { command: 'view', path: 'a\nb' }), /control characters/)
  })

  it('works with the real path as the display root by default', async () => {
    const tool = new TextEditorTool({ root: box.root, historyDir: box.history })
    writeFileSync(box.at('a.txt'), 'x\n')
    const out = await ok(tool, { command: 'view', path: box.root })
    assert.equal(out, `${realpathSync(box.root)}/\n  a.txt`)
  })

  it('reports a missing workspace folder without throwing', async () => {
    const tool = new TextEditorTool({ root: join(box.root, 'missing'), displayRoot: '/workspace' })
    const out = await fails(tool, { command: 'view', path: 'a.txt' })
    assert.match(out, /^Error: the workspace folder \/workspace is not available/)
  })
})
