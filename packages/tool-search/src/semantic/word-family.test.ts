import assert from 'node:assert/strict'
import { test } from 'node:test'
import { WordFamilies } from './word-family.js'

const families = new WordFamilies([
  'reimbursement',
  'cancel',
  'cancelled',
  'cancellation',
  'refunded',
  'format',
  'formation',
  'order',
  'x509',
])

test('a word finds the catalog forms of its family, longer and shorter', () => {
  assert.deepEqual(families.of('reimburse'), ['reimbursement'])
  assert.deepEqual(families.of('refund'), ['refunded'])
  assert.deepEqual(families.of('cancel'), ['cancellation', 'cancelled'])
  assert.deepEqual(families.of('cancelling'), ['cancel'])
  assert.deepEqual(families.of('formatting'), ['format'])
})

test('a word is not its own family, and short words, numbers and strangers have none', () => {
  assert.deepEqual(families.of('cancelled'), ['cancel'])
  assert.deepEqual(families.of('order'), [])
  assert.deepEqual(families.of('form'), [])
  assert.deepEqual(families.of('x5090'), [])
  assert.deepEqual(families.of('zzzzzz'), [])
  assert.deepEqual(families.of(''), [])
})

test('a root followed by a whole other word is no family: "format" is not "formatbuilder"', () => {
  assert.deepEqual(families.of('formatbuilder'), [])
  assert.deepEqual(families.of('reimbursementtracker'), [])
})

test('hostile input: a 10,000-letter word and an empty catalog', () => {
  assert.deepEqual(families.of('a'.repeat(10_000)), [])
  assert.deepEqual(families.of(`cancel${'l'.repeat(10_000)}`), [])
  assert.deepEqual(new WordFamilies([]).of('reimburse'), [])
})
