import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assertName, checkName, InvalidNameError } from './names.js'

test('names of 1 to 64 letters, digits, -, _ and . are accepted', () => {
  for (const name of ['a', 'acme', 'Acme-Corp_2.0', '.', 'x'.repeat(64), '0']) {
    assert.equal(checkName('org', name), null, name)
  }
})

test('empty, long and hostile names are refused without repeating them', () => {
  const hostile = [
    '',
    'x'.repeat(65),
    'x'.repeat(10 * 1024),
    "acme'; DROP TABLE orgs; --",
    'a\u0000b',
    'a b',
    'a/b',
    '\u001b[31mred',
    'acme\n',
    'ácme',
    '\uD800',
  ]
  for (const name of hostile) {
    const problem = checkName('workspace', name)
    assert.ok(problem, JSON.stringify(name.slice(0, 30)))
    assert.match(problem, /^workspace name must be 1 to 64 letters, digits/)
    if (name.length > 2) assert.ok(!problem.includes(name))
    assert.throws(() => assertName('org', name), InvalidNameError)
  }
  assert.match(checkName('org', 'x'.repeat(10240)) ?? '', /got 10240 characters/)
  assert.match(checkName('org', '') ?? '', /got an empty name/)
})
