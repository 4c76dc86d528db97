import assert from 'node:assert/strict'
import { test } from 'node:test'
import { resolveDraw } from './slot-draw.js'

test('status: text wins, only one row, newlines become spaces', () => {
  assert.deepEqual(resolveDraw('m', 'status', { text: 'a\nb', lines: ['x', 'y'] }), {
    kind: 'set',
    content: { mod: 'm', lines: ['a b'] },
  })
  assert.deepEqual(resolveDraw('m', 'status', { lines: ['x', 'y'] }), {
    kind: 'set',
    content: { mod: 'm', lines: ['x'] },
  })
})

test('band and pane: lines win, text is split on newlines, rows bounded, title defaults', () => {
  assert.deepEqual(resolveDraw('m', 'band', { text: 'a\nb', lines: ['x'] }), {
    kind: 'set',
    content: { mod: 'm', lines: ['x'] },
  })
  assert.deepEqual(resolveDraw('m', 'band', { text: '1\n2\n3\n4\n5' }), {
    kind: 'set',
    content: { mod: 'm', lines: ['1', '2', '3'] },
  })
  const pane = resolveDraw('m', 'pane', { lines: Array.from({ length: 30 }, (_, i) => `r${i}`) })
  assert.ok(pane.kind === 'set' && pane.content.lines.length === 12 && pane.content.title === 'm')
  const titled = resolveDraw('m', 'pane', { text: 'x', title: '\x1b[31mT\u202e' })
  assert.ok(titled.kind === 'set' && titled.content.title === 'T')
  const status = resolveDraw('m', 'status', { text: 'x', title: 'ignored' })
  assert.ok(status.kind === 'set' && status.content.title === undefined)
})

test('neither text nor lines clears; wrong types are malformed', () => {
  assert.deepEqual(resolveDraw('m', 'pane', { title: 't' }), { kind: 'clear' })
  assert.equal(resolveDraw('m', 'pane', { text: 5 }).kind, 'malformed')
  assert.equal(resolveDraw('m', 'pane', { lines: ['a', 1] }).kind, 'malformed')
  assert.equal(resolveDraw('m', 'pane', { lines: 'a' }).kind, 'malformed')
  assert.equal(resolveDraw('m', 'pane', { text: 'a', title: {} }).kind, 'malformed')
})

test('rows are cleaned and cut to 500 characters', () => {
  const out = resolveDraw('m', 'band', { lines: [`\x07${'y'.repeat(900)}`, 'a\tb'] })
  assert.ok(out.kind === 'set')
  assert.equal(out.content.lines[0], 'y'.repeat(500))
  assert.equal(out.content.lines[1], 'a  b')
})
