import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { SYNTIC_VERSIONS, type SynticVersion } from '../versions.js'
import { standardToolDefinition } from './definitions.js'
import { STANDARD_TOOL_TYPES, type StandardToolOptions, type StandardToolType } from './types.js'

// Version pinning: what each released API version shows the model is committed as JSON beside
// that version's renderers, and the current code must reproduce it byte for byte (same keys, same
// order, same text). Tests run from dist/, so the fixtures are found from the package root:
// this file is <package>/{src,dist}/standard-tools/fixtures.test.*, two levels below it.
const packageRoot = fileURLToPath(new URL('../../', import.meta.url))
const fixturesOf = (version: SynticVersion) =>
  join(packageRoot, 'src', 'standard-tools', `v${version}`, 'fixtures')

interface Fixture {
  version: SynticVersion
  type: StandardToolType
  options: StandardToolOptions
  definition: unknown
}

describe('version pinning', () => {
  it('finds the package root', () => {
    assert.ok(existsSync(join(packageRoot, 'package.json')), packageRoot)
  })

  for (const version of SYNTIC_VERSIONS) {
    const dir = fixturesOf(version)
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : []

    it(`${version}: has a fixture per type, with options and without`, () => {
      const expected = STANDARD_TOOL_TYPES.flatMap((t) => [`${t}.json`, `${t}.options.json`])
      assert.deepEqual(files.sort(), expected.sort())
    })

    for (const file of files) {
      it(`${version}: renders exactly ${file}`, () => {
        const fixture = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Fixture
        assert.equal(fixture.version, version)
        assert.equal(file.startsWith(`${fixture.type}.`), true)
        assert.equal(Object.keys(fixture.options).length === 0, !file.endsWith('.options.json'))
        const rendered = standardToolDefinition(fixture.type, fixture.options, version)
        // Compared as serialised JSON so a reordered key also counts as a change.
        assert.equal(JSON.stringify(rendered), JSON.stringify(fixture.definition))
      })
    }
  }
})
