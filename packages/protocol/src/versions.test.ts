import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  LATEST_SYNTIC_VERSION,
  resolveSynticVersion,
  SYNTIC_VERSION_HEADER,
  SYNTIC_VERSIONS,
} from './versions.js'

describe('resolveSynticVersion', () => {
  it('lists versions oldest first, the latest last', () => {
    assert.deepEqual([...SYNTIC_VERSIONS], [...SYNTIC_VERSIONS].sort())
    assert.equal(LATEST_SYNTIC_VERSION, SYNTIC_VERSIONS.at(-1))
    assert.equal(SYNTIC_VERSIONS[0], '2026-11-01')
  })

  it('gives the latest version when the header is absent', () => {
    assert.deepEqual(resolveSynticVersion(undefined), { ok: true, version: LATEST_SYNTIC_VERSION })
  })

  it('takes an exact version', () => {
    for (const version of SYNTIC_VERSIONS) {
      assert.deepEqual(resolveSynticVersion(version), { ok: true, version })
    }
  })

  it('maps a later date to the newest version at or before it', () => {
    assert.deepEqual(resolveSynticVersion('2026-11-02'), { ok: true, version: '2026-11-01' })
    assert.deepEqual(resolveSynticVersion('2099-12-31'), {
      ok: true,
      version: LATEST_SYNTIC_VERSION,
    })
  })

  it('tolerates surrounding whitespace', () => {
    assert.deepEqual(resolveSynticVersion(' 2026-11-01 '), { ok: true, version: '2026-11-01' })
  })

  for (const bad of [
    'yesterday',
    '2026-13-01',
    '2026-11-1',
    '',
    '2026-02-30',
    '20261101',
    'latest',
  ]) {
    it(`refuses the malformed value ${JSON.stringify(bad)}, naming the valid values`, () => {
      const result = resolveSynticVersion(bad)
      assert.equal(result.ok, false)
      if (result.ok) return
      assert.match(result.error, new RegExp(SYNTIC_VERSION_HEADER))
      assert.match(result.error, /YYYY-MM-DD/)
      for (const version of SYNTIC_VERSIONS) assert.ok(result.error.includes(version))
    })
  }

  it('refuses a date before the first version, naming the valid values', () => {
    const result = resolveSynticVersion('2026-10-31')
    assert.equal(result.ok, false)
    if (result.ok) return
    assert.match(result.error, /before the first/)
    assert.ok(result.error.includes('2026-11-01'))
  })
})
