import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_LIMITS, resolveLimits } from './limits.js'
import { checkRelativePath } from './paths.js'

describe('limits', () => {
  it('defaults to the spec: 2 CPUs, 4 GB, 5 GB disk, 120 s runs', () => {
    assert.deepEqual(
      [
        DEFAULT_LIMITS.cpus,
        DEFAULT_LIMITS.memoryBytes,
        DEFAULT_LIMITS.diskBytes,
        DEFAULT_LIMITS.runTimeoutMs,
      ],
      [2, 4 * 1024 ** 3, 5 * 1024 ** 3, 120_000],
    )
    assert.deepEqual(resolveLimits(), { ...DEFAULT_LIMITS })
    assert.equal(resolveLimits({ runTimeoutMs: 2000 }).runTimeoutMs, 2000)
  })

  it('rejects hostile values', () => {
    const bad: Record<string, unknown>[] = [
      { cpus: 0 },
      { cpus: Number.NaN },
      { memoryBytes: 1 },
      { diskBytes: 2 ** 60 },
      { pidsMax: 1.5 },
      { runTimeoutMs: -1 },
      { outputCapBytes: '100' },
    ]
    for (const limits of bad)
      assert.throws(() => resolveLimits(limits), RangeError, JSON.stringify(limits))
  })
})

describe('file paths', () => {
  it('accepts plain relative paths, normalised', () => {
    assert.equal(checkRelativePath('a//b/c.csv'), 'a/b/c.csv')
    assert.equal(checkRelativePath('données.csv'), 'données.csv')
  })

  it('rejects paths that could leave the folder', () => {
    for (const path of [
      '',
      '/',
      '/etc/passwd',
      '..',
      'a/../b',
      './a',
      'a\0',
      'x'.repeat(256),
      `${'a/'.repeat(2100)}a`,
      7,
    ]) {
      assert.throws(
        () => checkRelativePath(path),
        { code: 'invalid_path' },
        String(path).slice(0, 20),
      )
    }
  })
})
