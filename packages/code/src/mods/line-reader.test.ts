import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LineReader, type ReadItem } from './line-reader.js'

function drain(reader: LineReader): ReadItem[] {
  const items: ReadItem[] = []
  for (let item = reader.take(); item; item = reader.take()) items.push(item)
  return items
}

const text = (items: ReadItem[]) =>
  items.map((i) => (i.kind === 'line' ? i.bytes.toString() : '<big>'))

test('splits lines across chunks and keeps a partial line for later', () => {
  const reader = new LineReader(16)
  reader.push(Buffer.from('ab\ncd'))
  assert.deepEqual(text(drain(reader)), ['ab'])
  reader.push(Buffer.from('ef\n\ngh\n'))
  assert.deepEqual(text(drain(reader)), ['cdef', '', 'gh'])
  assert.equal(reader.pending, false)
})

test('a line over the limit is reported once and skipped whole, even across many chunks', () => {
  const reader = new LineReader(8)
  reader.push(Buffer.from('12345'))
  reader.push(Buffer.from('67890'))
  reader.push(Buffer.from('more more more'))
  reader.push(Buffer.from('tail\nok\n'))
  assert.deepEqual(text(drain(reader)), ['<big>', 'ok'])
})

test('a line exactly at the limit passes; one byte more does not', () => {
  const reader = new LineReader(4)
  reader.push(Buffer.from('1234\n12345\nx\n'))
  assert.deepEqual(text(drain(reader)), ['1234', '<big>', 'x'])
})

test('take returns one item at a time so the caller can stop mid-chunk', () => {
  const reader = new LineReader(16)
  reader.push(Buffer.from('a\nb\nc\n'))
  assert.deepEqual(text([reader.take()!]), ['a'])
  assert.equal(reader.pending, true)
  assert.deepEqual(text(drain(reader)), ['b', 'c'])
})

test('holds no more than the limit of an endless line', () => {
  const reader = new LineReader(1024)
  const chunk = Buffer.alloc(4096, 0x61)
  const items: ReadItem[] = []
  for (let i = 0; i < 1000; i++) {
    reader.push(chunk)
    items.push(...drain(reader))
  }
  assert.deepEqual(text(items), ['<big>'])
})
