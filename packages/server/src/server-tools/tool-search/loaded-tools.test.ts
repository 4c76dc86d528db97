import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LoadedTools } from './loaded-tools.js'

test('loads within the limit without unloading', () => {
  const loaded = new LoadedTools(3)
  assert.deepEqual(loaded.load(['a', 'b']), [])
  assert.deepEqual(loaded.load(['c']), [])
  assert.deepEqual(loaded.names(), ['a', 'b', 'c'])
})

test('past the limit, the least recently loaded go first, never those just found', () => {
  const loaded = new LoadedTools(3)
  loaded.load(['a', 'b', 'c'])
  assert.deepEqual(loaded.load(['d', 'a']), ['b'])
  assert.deepEqual(loaded.names(), ['c', 'd', 'a'])
})

test('a search that finds more than the limit keeps what it can of it', () => {
  const loaded = new LoadedTools(2)
  loaded.load(['a'])
  assert.deepEqual(loaded.load(['b', 'c', 'd']), ['a', 'b'])
  assert.deepEqual(loaded.names(), ['c', 'd'])
})

test('loading again what is loaded refreshes it without unloading', () => {
  const loaded = new LoadedTools(2)
  loaded.load(['a', 'b'])
  assert.deepEqual(loaded.load(['a']), [])
  assert.deepEqual(loaded.load(['c']), ['b'])
})
