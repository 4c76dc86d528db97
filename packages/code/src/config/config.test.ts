import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ConfigError, resolveConfig } from './config.js'

let home: string

function withFile(content: string | null): void {
  const dir = join(home, '.syntic')
  mkdirSync(dir, { recursive: true })
  if (content === null) rmSync(join(dir, 'code.json'), { force: true })
  else writeFileSync(join(dir, 'code.json'), content)
}

before(() => {
  home = mkdtempSync(join(tmpdir(), 'syntic-config-'))
})
after(() => rmSync(home, { recursive: true, force: true }))

describe('resolveConfig', () => {
  it('takes flags over the environment over the file', () => {
    withFile(
      JSON.stringify({
        model: 'file-model',
        mode: 'plan',
        upstream: 'http://file/v1',
        max_steps: 7,
        sandbox: false,
      }),
    )
    const env = { HOME: home, SYNTIC_MODEL: 'env-model', OPENAI_BASE_URL: 'http://env/v1/' }
    const fromEnv = resolveConfig({}, env)
    assert.equal(fromEnv.model, 'env-model')
    assert.deepEqual(fromEnv.target, {
      kind: 'upstream',
      baseUrl: 'http://env/v1',
      apiKey: undefined,
    })
    assert.equal(fromEnv.mode, 'plan')
    assert.equal(fromEnv.maxSteps, 7)
    assert.equal(fromEnv.sandbox, false)
    assert.equal(fromEnv.home, join(home, '.syntic'))
    const fromFlags = resolveConfig(
      {
        model: 'flag-model',
        mode: 'bypass',
        upstream: 'http://flag/v1',
        sandbox: true,
        maxSteps: '3',
      },
      env,
    )
    assert.equal(fromFlags.model, 'flag-model')
    assert.equal(fromFlags.mode, 'bypass')
    assert.equal(fromFlags.target.baseUrl, 'http://flag/v1')
    assert.equal(fromFlags.maxSteps, 3)
    assert.equal(fromFlags.sandbox, true)
    const fromFile = resolveConfig({}, { HOME: home })
    assert.equal(fromFile.model, 'file-model')
    assert.equal(fromFile.target.baseUrl, 'http://file/v1')
    withFile(null)
  })

  it('prefers a Syntic server in the environment and needs its key', () => {
    const env = {
      HOME: home,
      SYNTIC_MODEL: 'm',
      SYNTIC_BASE_URL: 'http://s/v1',
      OPENAI_BASE_URL: 'http://o/v1',
    }
    assert.throws(() => resolveConfig({}, env), /SYNTIC_API_KEY is not set/)
    const config = resolveConfig({}, { ...env, SYNTIC_API_KEY: 'sk_live_1' })
    assert.deepEqual(config.target, { kind: 'syntic', baseUrl: 'http://s/v1', apiKey: 'sk_live_1' })
    assert.equal(config.mode, 'default')
    assert.equal(config.sandbox, true)
    assert.equal(config.network, false)
  })

  const bad: [string, string | null, Record<string, string>, Record<string, string>, RegExp][] = [
    ['no target', null, { model: 'm' }, {}, /no model server configured/],
    ['no model', null, {}, { OPENAI_BASE_URL: 'http://o/v1' }, /no model: pass --model/],
    ['a non-URL', null, { model: 'm', upstream: 'ftp://x' }, {}, /must be an http/],
    ['garbage URL', null, { model: 'm', server: '::' }, {}, /--server: "::" is not a URL/],
    [
      'an unknown mode',
      null,
      { model: 'm', upstream: 'http://o/v1', mode: 'god' },
      {},
      /unknown mode "god"/,
    ],
    [
      'a bad env mode',
      null,
      { model: 'm', upstream: 'http://o/v1' },
      { SYNTIC_CODE_MODE: 'x' },
      /SYNTIC_CODE_MODE/,
    ],
    [
      'too many steps',
      null,
      { model: 'm', upstream: 'http://o/v1', maxSteps: '1e9' },
      {},
      /max steps/,
    ],
    [
      'fractional steps',
      null,
      { model: 'm', upstream: 'http://o/v1', maxSteps: '2.5' },
      {},
      /max steps/,
    ],
    ['a file that is not JSON', '{nope', {}, {}, /is not valid JSON/],
    ['a file that is an array', '[]', {}, {}, /must hold a JSON object/],
    ['an unknown file key', '{"api_key": "sk"}', {}, {}, /unknown setting "api_key".*environment/],
    ['a wrong file type', '{"sandbox": "yes"}', {}, {}, /"sandbox" must be true or false/],
    [
      'both targets in the file',
      '{"server": "http://a/v1", "upstream": "http://b/v1"}',
      {},
      {},
      /either "server" or "upstream"/,
    ],
  ]
  for (const [name, file, flags, env, pattern] of bad) {
    it(`rejects ${name}`, () => {
      withFile(file)
      try {
        assert.throws(
          () => resolveConfig(flags, { HOME: home, ...env }),
          (error: unknown) => error instanceof ConfigError && pattern.test(error.message),
        )
      } finally {
        withFile(null)
      }
    })
  }
})
