import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  backspace,
  browseHistory,
  cursorTo,
  editorText,
  emptyEditor,
  INPUT_MAX_CHARS,
  insertText,
  moveCursor,
  submit,
} from './line-editor.js'

describe('line editor', () => {
  it('types, moves and deletes at the cursor', () => {
    let editor = insertText(emptyEditor(), 'helo')
    editor = moveCursor(editor, -1)
    editor = insertText(editor, 'l')
    assert.equal(editorText(editor), 'hello')
    assert.equal(editor.cursor, 4)
    editor = backspace(cursorTo(editor, 'end'))
    assert.equal(editorText(editor), 'hell')
    editor = backspace(cursorTo(editor, 'start'))
    assert.equal(editorText(editor), 'hell')
    assert.equal(moveCursor(editor, -5).cursor, 0)
    assert.equal(moveCursor(editor, 50).cursor, 4)
  })

  it('treats a surrogate pair as one character', () => {
    const editor = backspace(insertText(emptyEditor(), 'a😀'))
    assert.equal(editorText(editor), 'a')
  })

  it('strips control characters from pasted text and bounds its length', () => {
    assert.equal(editorText(insertText(emptyEditor(), 'a\u001b[2Jb\nc')), 'a[2Jb c')
    const huge = insertText(emptyEditor(), 'x'.repeat(INPUT_MAX_CHARS * 2))
    assert.equal(huge.chars.length, INPUT_MAX_CHARS)
    assert.equal(insertText(huge, 'more'), huge)
  })

  it('submits, remembers and browses history, keeping the draft', () => {
    let editor = submit(insertText(emptyEditor(), 'first')).editor
    editor = submit(insertText(editor, 'second')).editor
    editor = submit(insertText(editor, '   ')).editor
    assert.deepEqual(editor.history, ['first', 'second'])
    editor = insertText(editor, 'draft')
    editor = browseHistory(editor, -1)
    assert.equal(editorText(editor), 'second')
    editor = browseHistory(browseHistory(editor, -1), -1)
    assert.equal(editorText(editor), 'first')
    editor = browseHistory(browseHistory(editor, 1), 1)
    assert.equal(editorText(editor), 'draft')
    assert.equal(browseHistory(editor, 1), editor)
  })
})
