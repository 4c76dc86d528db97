import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { findImage, ImageMissingError, imageLocation, requireImage } from './build.js'
import { parseRecipe, RECIPE_PATH, recipeHash } from './recipe.js'

describe('image recipe', () => {
  const text = readFileSync(RECIPE_PATH, 'utf8')

  it('has the packages of the spec on bookworm', () => {
    const recipe = parseRecipe(text)
    assert.equal(recipe.suite, 'bookworm')
    for (const pkg of [
      'bash',
      'coreutils',
      'python3',
      'python3-pandas',
      'python3-numpy',
      'python3-matplotlib',
      'python3-openpyxl',
      'python3-pypdf',
    ]) {
      assert.ok(recipe.include.includes(pkg), pkg)
    }
  })

  it('keys the cache by the recipe text', () => {
    assert.equal(recipeHash(text), recipeHash(text))
    assert.notEqual(recipeHash(text), recipeHash(`${text} `))
    assert.match(recipeHash(text), /^[0-9a-f]{16}$/)
  })

  it('rejects recipes that reach outside the image or inject options', () => {
    const base = JSON.parse(text) as Record<string, unknown>
    const bad = [
      { ...base, remove: ['../../etc'] },
      { ...base, remove: ['/etc'] },
      { ...base, files: { 'a/../../x': 'y' } },
      { ...base, include: ['--foo'] },
      { ...base, suite: 'bookworm --keyring=/x' },
      { ...base, warm: 'rm -rf /' },
      { ...base, files: { a: 1 } },
    ]
    for (const recipe of bad) assert.throws(() => parseRecipe(JSON.stringify(recipe)), /recipe:/)
    assert.throws(() => parseRecipe('[]'), /recipe:/)
  })

  it('finds an image only once its build completed', () => {
    const cache = mkdtempSync(join(tmpdir(), 'syntic-image-cache-'))
    try {
      const location = imageLocation(cache)
      mkdirSync(location.rootfs, { recursive: true })
      assert.equal(findImage(cache), null)
      assert.throws(() => requireImage(cache), ImageMissingError)
      writeFileSync(join(location.dir, 'complete.json'), '{}')
      assert.equal(findImage(cache), location.rootfs)
    } finally {
      rmSync(cache, { recursive: true, force: true })
    }
  })

  it('is built for this recipe (npm test builds it first)', () => {
    assert.ok(requireImage())
  })
})
