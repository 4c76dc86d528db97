import assert from 'node:assert/strict'
import { test } from 'node:test'
import { NoteRateLimit, WaitingLines } from './notes.js'

test('five notes in any 60-second window: the window slides, it is not reset each minute', () => {
  const limit = new NoteRateLimit()
  for (const at of [0, 10_000, 20_000, 30_000, 40_000]) assert.equal(limit.take(at), true, `${at}`)
  assert.equal(limit.take(50_000), false, 'sixth within the window')
  assert.equal(limit.take(59_999), false, 'the first is still inside the window')
  assert.equal(limit.take(60_000), true, 'the first left the window')
  assert.equal(limit.take(61_000), false, 'only one slot was freed')
  assert.equal(limit.take(70_000), true, 'the second left the window')
  assert.equal(limit.take(130_001), true)
})

test('a refused note does not use up the window', () => {
  const limit = new NoteRateLimit()
  for (let i = 0; i < 5; i++) limit.take(i)
  for (let i = 0; i < 100; i++) assert.equal(limit.take(1000 + i), false)
  assert.equal(limit.take(60_000), true)
})

test('only the newest 50 notes wait; warnings are kept apart and in order', () => {
  const waiting = new WaitingLines()
  waiting.push({ kind: 'warning', mod: 'a', text: 'w0' })
  for (let i = 0; i < 120; i++)
    waiting.push({ kind: 'note', mod: i % 2 ? 'a' : 'b', text: `n${i}` })
  waiting.push({ kind: 'warning', mod: 'a', text: 'w1' })
  const lines = waiting.take()
  assert.equal(lines.length, 52)
  assert.equal(lines[0]!.text, 'w0')
  assert.equal(lines[1]!.text, 'n70')
  assert.equal(lines.at(-2)!.text, 'n119')
  assert.equal(lines.at(-1)!.text, 'w1')
  assert.equal(waiting.dropped, 70)
  assert.deepEqual(waiting.take(), [])
})
