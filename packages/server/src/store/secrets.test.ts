import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  displayPrefix,
  generateSecret,
  hashSecret,
  looksLikeKeyId,
  looksLikeSecret,
  newId,
  SECRET_LENGTH,
} from './secrets.js'

test('secrets are sk_live_ and 43 base62 characters, all different', () => {
  const seen = new Set<string>()
  for (let i = 0; i < 2000; i++) {
    const secret = generateSecret()
    assert.match(secret, /^sk_live_[0-9A-Za-z]{43}$/)
    assert.equal(secret.length, SECRET_LENGTH)
    assert.ok(looksLikeSecret(secret))
    seen.add(secret)
  }
  assert.equal(seen.size, 2000)
})

test('secrets use the whole alphabet, not a biased part of it', () => {
  const counts = new Map<string, number>()
  for (let i = 0; i < 2000; i++) {
    // The first body character carries less than a full digit of entropy; skip it.
    for (const c of generateSecret().slice(9)) counts.set(c, (counts.get(c) ?? 0) + 1)
  }
  assert.equal(counts.size, 62)
  const expected = (2000 * 42) / 62
  for (const [c, n] of counts) assert.ok(n > expected * 0.8 && n < expected * 1.2, `${c}: ${n}`)
})

test('ids are their prefix and 22 base62 characters', () => {
  for (const prefix of ['org_', 'wrk_', 'key_'] as const) {
    const ids = new Set(Array.from({ length: 500 }, () => newId(prefix)))
    assert.equal(ids.size, 500)
    for (const id of ids) assert.match(id, new RegExp(`^${prefix}[0-9A-Za-z]{22}$`))
  }
  assert.ok(looksLikeKeyId(newId('key_')))
  assert.ok(!looksLikeKeyId(newId('org_')))
})

test('only exact secret shapes look like secrets', () => {
  const secret = generateSecret()
  for (const value of [
    '',
    'sk_live_',
    secret.slice(0, -1),
    `${secret}A`,
    secret.replace('sk_live_', 'sk_test_'),
    `${secret.slice(0, -1)}-`,
    `${secret.slice(0, -1)}\n`,
    `${secret.slice(0, -1)}é`,
    'x'.repeat(10240),
  ]) {
    assert.ok(!looksLikeSecret(value), JSON.stringify(value.slice(0, 60)))
  }
  for (const value of ['', 'key_', `key_${'a'.repeat(21)}`, `key_${'a'.repeat(21)}\n`, "key_'"]) {
    assert.ok(!looksLikeKeyId(value), JSON.stringify(value))
  }
})

test('the hash is SHA-256 in hex and the display prefix is 12 characters', () => {
  assert.equal(
    hashSecret('abc'),
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  )
  const secret = generateSecret()
  assert.notEqual(hashSecret(secret), hashSecret(generateSecret()))
  assert.equal(displayPrefix(secret), secret.slice(0, 12))
  assert.ok(displayPrefix(secret).startsWith('sk_live_'))
})
