import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cleanOneLine, cleanRows, cleanText, cutText } from './text-clean.js'

test('removes escape sequences, controls and direction overrides; tabs become spaces', () => {
  assert.equal(cleanText('\x1b[31mred\x1b[0m'), 'red')
  assert.equal(cleanText('a\x1b]0;title\x07b'), 'ab')
  assert.equal(cleanText('a\u0000b\u0007c\u007fd\u009be'), 'abcde')
  assert.equal(cleanText('safe\u202egnp.exe\u2066x\u2069\u200f'), 'safegnp.exex')
  assert.equal(cleanText('a\tb'), 'a  b')
  assert.equal(cleanText('\r\n'), '')
})

test('lone surrogates become the replacement character', () => {
  assert.equal(cleanText('a\ud800b'), 'a\ufffdb')
  assert.equal(cleanText('😀'), '😀')
})

test('one-line text turns every kind of newline into a space', () => {
  assert.equal(cleanOneLine('a\nb\r\nc\rd'), 'a b c d')
  assert.deepEqual(cleanRows('a\nb\r\nc'), ['a', 'b', 'c'])
})

test('cuts by characters, never inside a surrogate pair', () => {
  assert.equal(cutText('abcdef', 3), 'abc')
  assert.equal(cutText('😀😀😀', 2), '😀😀')
  assert.equal(cutText('x'.repeat(600)).length, 500)
})
