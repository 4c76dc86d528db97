import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ConfigError, loadConfig } from './load-config.js'

describe('loadConfig', () => {
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'syntic-config-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  function fails(env: Record<string, string>, setting: RegExp, message?: RegExp): void {
    assert.throws(
      () => loadConfig(env, dir),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error))
        assert.match(error.setting, setting)
        if (message) assert.match(error.message, message)
        return true
      },
    )
  }

  it('defaults without a config file or environment', () => {
    const config = loadConfig({}, dir)
    assert.deepEqual(config, {
      host: '127.0.0.1',
      port: 8080,
      home: join(dir, '.syntic'),
      models: {},
      bodyLimitBytes: 32 * 1024 * 1024,
      requestLog: true,
      sandbox: {
        driver: 'local',
        maxSandboxes: 64,
        poolSize: 1,
        idleMs: 30 * 60 * 1000,
        maxLifetimeMs: 24 * 3600 * 1000,
        reapIntervalMs: 60_000,
      },
    })
  })

  it('reads the sandbox driver, capacity and pool from the environment, and rejects others', () => {
    const config = loadConfig(
      {
        SYNTIC_SANDBOX_DRIVER: 'docker',
        SYNTIC_DOCKER_HOST: 'unix:///run/podman.sock',
        SYNTIC_SANDBOX_MAX: '5',
        SYNTIC_SANDBOX_POOL: '0',
      },
      dir,
    )
    assert.equal(config.sandbox?.driver, 'docker')
    assert.equal(config.sandbox?.dockerHost, 'unix:///run/podman.sock')
    assert.equal(config.sandbox?.maxSandboxes, 5)
    assert.equal(config.sandbox?.poolSize, 0)
    fails({ SYNTIC_SANDBOX_DRIVER: 'kubernetes' }, /SYNTIC_SANDBOX_DRIVER/)
    fails({ SYNTIC_SANDBOX_MAX: '0' }, /SYNTIC_SANDBOX_MAX/)
  })

  it('reads the embeddings server for semantic tool search from the environment', () => {
    const config = loadConfig(
      {
        SYNTIC_EMBEDDINGS_URL: 'http://127.0.0.1:8001/v1/',
        SYNTIC_EMBEDDINGS_MODEL: 'bge-small',
        SYNTIC_EMBEDDINGS_API_KEY: 'sk-emb',
      },
      dir,
    )
    assert.deepEqual(config.embeddings, {
      url: 'http://127.0.0.1:8001/v1',
      model: 'bge-small',
      apiKey: 'sk-emb',
    })
    fails({ SYNTIC_EMBEDDINGS_URL: 'http://127.0.0.1:8001/v1' }, /^SYNTIC_EMBEDDINGS_MODEL$/)
    fails({ SYNTIC_EMBEDDINGS_MODEL: 'bge-small' }, /^SYNTIC_EMBEDDINGS_MODEL$/, /URL .*is not/)
    fails({ SYNTIC_EMBEDDINGS_API_KEY: 'k' }, /^SYNTIC_EMBEDDINGS_API_KEY$/)
    fails(
      { SYNTIC_EMBEDDINGS_URL: 'ftp://x', SYNTIC_EMBEDDINGS_MODEL: 'm' },
      /^SYNTIC_EMBEDDINGS_URL$/,
    )
    fails(
      { SYNTIC_EMBEDDINGS_URL: 'http://u:secret@x/v1', SYNTIC_EMBEDDINGS_MODEL: 'm' },
      /^SYNTIC_EMBEDDINGS_URL$/,
      /SYNTIC_EMBEDDINGS_API_KEY/,
    )
  })

  it('reads the embeddings server from the config file, the environment taking precedence', () => {
    const file = join(dir, 'embeddings.json')
    const write = (embeddings: unknown) => writeFileSync(file, JSON.stringify({ embeddings }))
    write({ url: 'http://127.0.0.1:8001/v1', model: 'bge-small', apiKey: 'sk-file' })
    assert.deepEqual(loadConfig({ SYNTIC_CONFIG: file }, dir).embeddings, {
      url: 'http://127.0.0.1:8001/v1',
      model: 'bge-small',
      apiKey: 'sk-file',
    })
    assert.deepEqual(
      loadConfig(
        { SYNTIC_CONFIG: file, SYNTIC_EMBEDDINGS_MODEL: 'e5', SYNTIC_EMBEDDINGS_API_KEY: 'k' },
        dir,
      ).embeddings,
      { url: 'http://127.0.0.1:8001/v1', model: 'e5', apiKey: 'k' },
    )
    write({ model: 'bge-small' })
    fails({ SYNTIC_CONFIG: file }, /"embeddings.model"$/, /embeddings.url/)
    write({ url: 'http://127.0.0.1:8001/v1' })
    fails({ SYNTIC_CONFIG: file }, /^SYNTIC_EMBEDDINGS_MODEL$/, /embeddings.model/)
    write({ url: 'http://user:hunter2@127.0.0.1:8001/v1', model: 'm' })
    assert.throws(
      () => loadConfig({ SYNTIC_CONFIG: file }, dir),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError)
        assert.match(error.setting, /"embeddings.url"$/)
        assert.match(error.message, /embeddings.apiKey/)
        assert.doesNotMatch(error.message, /upstream|hunter2/)
        return true
      },
    )
    for (const [bad, setting] of [
      ['not an object', /"embeddings"$/],
      [{ url: 'http://x/v1', model: 'm', key: 'k' }, /"embeddings.key"$/],
      [{ url: 42, model: 'm' }, /"embeddings.url"$/],
      [{ url: 'file:///etc/passwd', model: 'm' }, /"embeddings.url"$/],
      [{ url: 'http://x/v1', model: '' }, /"embeddings.model"$/],
      [{ url: 'http://x/v1', model: 'm', apiKey: ['k'] }, /"embeddings.apiKey"$/],
      [{ url: `http://x/${'v'.repeat(100_000)}?q=1`, model: 'm' }, /"embeddings.url"$/],
    ] as const) {
      write(bad)
      fails({ SYNTIC_CONFIG: file }, setting)
    }
  })

  it('reads every environment setting', () => {
    const config = loadConfig(
      {
        HOST: '0.0.0.0',
        PORT: '0',
        SYNTIC_HOME: 'state',
        SYNTIC_DATABASE_URL: 'postgres://u:p@db/syntic',
        SYNTIC_UPSTREAM_URL: 'http://127.0.0.1:8000/v1/',
        SYNTIC_UPSTREAM_API_KEY: 'sk-up',
        SYNTIC_UPSTREAM_FORMAT: 'anthropic',
        SYNTIC_UPSTREAM_TIMEOUT_MS: '1500',
        SYNTIC_BODY_LIMIT_BYTES: '1024',
        SYNTIC_REQUEST_LOG: 'off',
      },
      dir,
    )
    assert.equal(config.host, '0.0.0.0')
    assert.equal(config.port, 0)
    assert.equal(config.home, join(dir, 'state'))
    assert.equal(config.databaseUrl, 'postgres://u:p@db/syntic')
    assert.deepEqual(config.upstream, {
      url: 'http://127.0.0.1:8000/v1',
      apiKey: 'sk-up',
      format: 'anthropic',
      timeoutMs: 1500,
      connectTimeoutMs: 10_000,
    })
    assert.equal(config.bodyLimitBytes, 1024)
    assert.equal(config.requestLog, false)
  })

  it('uses an upstream with the default format and timeout when only the URL is set', () => {
    const config = loadConfig({ SYNTIC_UPSTREAM_URL: 'https://api.openai.com/v1' }, dir)
    assert.deepEqual(config.upstream, {
      url: 'https://api.openai.com/v1',
      format: 'openai',
      timeoutMs: 600_000,
      connectTimeoutMs: 10_000,
    })
  })

  it('reads <home>/config.json when present, with the environment taking precedence', () => {
    const home = join(dir, 'home-a')
    mkdirSync(home)
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        port: 9000,
        host: '::1',
        models: { 'Syntic Code': 'qwen2.5-coder-32b', 'Amara S1.2': 'llama3.1:8b' },
        upstream: { url: 'http://up:1/v1', format: 'openai', timeoutMs: 42 },
        requestLog: false,
      }),
    )
    const config = loadConfig({ SYNTIC_HOME: home, PORT: '9001' }, dir)
    assert.equal(config.port, 9001)
    assert.equal(config.host, '::1')
    assert.equal(config.home, home)
    assert.equal(config.requestLog, false)
    assert.deepEqual(
      { ...config.models },
      {
        'Syntic Code': 'qwen2.5-coder-32b',
        'Amara S1.2': 'llama3.1:8b',
      },
    )
    assert.equal(config.upstream?.url, 'http://up:1/v1')
    assert.equal(config.upstream?.timeoutMs, 42)
  })

  it('reads SYNTIC_CONFIG and resolves its relative home from the file folder', () => {
    const sub = join(dir, 'etc')
    mkdirSync(sub)
    writeFileSync(join(sub, 'syntic.json'), JSON.stringify({ home: 'data' }))
    const config = loadConfig({ SYNTIC_CONFIG: 'etc/syntic.json' }, dir)
    assert.equal(config.home, join(sub, 'data'))
  })

  it('names the setting for every bad environment value', () => {
    fails({ PORT: 'http' }, /^PORT$/, /whole number from 0 to 65535; got "http"/)
    fails({ PORT: '70000' }, /^PORT$/)
    fails({ PORT: '-1' }, /^PORT$/)
    fails({ PORT: '80.5' }, /^PORT$/)
    fails({ SYNTIC_UPSTREAM_URL: 'ftp://x' }, /^SYNTIC_UPSTREAM_URL$/, /http\(s\) URL/)
    fails({ SYNTIC_UPSTREAM_URL: 'not a url' }, /^SYNTIC_UPSTREAM_URL$/)
    fails({ SYNTIC_UPSTREAM_URL: 'http://x/v1?key=1' }, /^SYNTIC_UPSTREAM_URL$/, /query/)
    fails(
      { SYNTIC_UPSTREAM_URL: 'http://x/v1', SYNTIC_UPSTREAM_FORMAT: 'gemini' },
      /^SYNTIC_UPSTREAM_FORMAT$/,
      /openai or anthropic/,
    )
    fails(
      { SYNTIC_UPSTREAM_URL: 'http://x/v1', SYNTIC_UPSTREAM_TIMEOUT_MS: '0' },
      /^SYNTIC_UPSTREAM_TIMEOUT_MS$/,
    )
    fails({ SYNTIC_UPSTREAM_URL: 'http://x/v1', SYNTIC_UPSTREAM_TIMEOUT_MS: '1e99' }, /TIMEOUT/)
    fails({ SYNTIC_BODY_LIMIT_BYTES: 'lots' }, /^SYNTIC_BODY_LIMIT_BYTES$/)
    fails({ SYNTIC_REQUEST_LOG: 'maybe' }, /^SYNTIC_REQUEST_LOG$/, /on or off/)
    fails({ SYNTIC_CONFIG: 'missing.json' }, /^SYNTIC_CONFIG$/, /does not exist/)
  })

  it('never echoes a database URL, which may hold a password', () => {
    fails({ SYNTIC_DATABASE_URL: 'mysql://root:hunter2@db' }, /^SYNTIC_DATABASE_URL$/)
    try {
      loadConfig({ SYNTIC_DATABASE_URL: 'mysql://root:hunter2@db' }, dir)
    } catch (error) {
      assert.doesNotMatch((error as Error).message, /hunter2/)
    }
  })

  it('never echoes a rejected upstream URL, and refuses one holding credentials', () => {
    const file = join(dir, 'upstream-url.json')
    const bad: [string, RegExp][] = [
      ['http://user:hunter2@[::1', /not a valid URL/],
      ['ftp://user:hunter2@x/v1', /http\(s\) URL/],
      ['https://user:hunter2@api.example.com/v1', /SYNTIC_UPSTREAM_API_KEY/],
      ['https://hunter2@api.example.com/v1', /user name or password/],
      ['https://:hunter2@api.example.com/v1', /user name or password/],
      ['https://api.example.com/v1?key=hunter2', /query/],
    ]
    for (const [url, message] of bad) {
      writeFileSync(file, JSON.stringify({ upstream: { url } }))
      for (const [env, setting] of [
        [{ SYNTIC_UPSTREAM_URL: url }, /^SYNTIC_UPSTREAM_URL$/],
        [{ SYNTIC_CONFIG: file }, /"upstream.url"$/],
      ] as const) {
        fails(env, setting, message)
        assert.throws(
          () => loadConfig(env, dir),
          (error: Error) => !error.message.includes('hunter2'),
        )
      }
    }
  })

  it('refuses upstream settings without an upstream URL', () => {
    fails({ SYNTIC_UPSTREAM_API_KEY: 'sk' }, /^SYNTIC_UPSTREAM_API_KEY$/, /SYNTIC_UPSTREAM_URL/)
    fails({ SYNTIC_UPSTREAM_FORMAT: 'anthropic' }, /^SYNTIC_UPSTREAM_FORMAT$/)
  })

  it('names the file and key for every bad file value', () => {
    const cases: [unknown, RegExp][] = [
      ['[1, 2', /^SYNTIC_CONFIG$/],
      [[1, 2], /^SYNTIC_CONFIG$/],
      [{ prot: 80 }, /"prot"$/],
      [{ port: '80' }, /"port"$/],
      [{ host: '' }, /"host"$/],
      [{ requestLog: 'yes' }, /"requestLog"$/],
      [{ models: ['Syntic Code'] }, /"models"$/],
      [{ models: { 'Syntic Code': 42 } }, /"models"$/],
      [{ models: { 'Syntic Code': '' } }, /"models"$/],
      [{ upstream: 'http://x' }, /"upstream"$/],
      [{ upstream: { url: 'http://x', formt: 'openai' } }, /"upstream.formt"$/],
      [{ upstream: { url: 'file:///etc/passwd' } }, /"upstream.url"$/],
      [{ upstream: { url: 'http://x', timeoutMs: -5 } }, /"upstream.timeoutMs"$/],
      [{ upstream: { format: 'anthropic' } }, /"upstream.format"$/],
      [{ bodyLimitBytes: 0 }, /"bodyLimitBytes"$/],
      [{ databaseUrl: 'sqlite:x' }, /"databaseUrl"$/],
    ]
    for (const [content, setting] of cases) {
      const file = join(dir, 'bad.json')
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content))
      fails({ SYNTIC_CONFIG: file }, setting)
    }
  })

  it('keeps model names off Object.prototype', () => {
    const file = join(dir, 'proto.json')
    writeFileSync(file, '{"models": {"__proto__": "x", "Syntic Code": "y"}}')
    const config = loadConfig({ SYNTIC_CONFIG: file }, dir)
    assert.equal(Object.getPrototypeOf(config.models), null)
    assert.equal(Object.getOwnPropertyDescriptor(config.models, '__proto__')?.value, 'x')
    assert.equal(({} as Record<string, unknown>).x, undefined)
  })

  it('reads tiers from the config file', () => {
    const file = join(dir, 'tiers.json')
    writeFileSync(
      file,
      JSON.stringify({
        tiers: {
          default: { containerLimit: 10 },
          team: { containerLimit: 50 },
          'free.v2': { containerLimit: 0 },
        },
      }),
    )
    const config = loadConfig({ SYNTIC_CONFIG: file }, dir)
    assert.deepEqual(
      { ...config.tiers },
      {
        default: { containerLimit: 10 },
        team: { containerLimit: 50 },
        'free.v2': { containerLimit: 0 },
      },
    )
    assert.equal(loadConfig({}, dir).tiers, undefined, 'no tiers: the defaults apply')
  })

  it('names the tier setting for every bad tier', () => {
    const cases: [unknown, RegExp, RegExp][] = [
      [[], /"tiers"$/, /map tier names/],
      ['team', /"tiers"$/, /map tier names/],
      [{ team: 50 }, /"tiers.team"$/, /must be an object/],
      [{ team: null }, /"tiers.team"$/, /must be an object/],
      [{ team: {} }, /"tiers.team.containerLimit"$/, /missing/],
      [{ team: { containerLimit: -1 } }, /"tiers.team.containerLimit"$/, /0 to 10000/],
      [{ team: { containerLimit: 10_001 } }, /"tiers.team.containerLimit"$/, /0 to 10000/],
      [{ team: { containerLimit: 1.5 } }, /"tiers.team.containerLimit"$/, /whole number/],
      [{ team: { containerLimit: '50' } }, /"tiers.team.containerLimit"$/, /got "50"/],
      [{ team: { containerLimit: 5, memory: 4 } }, /"tiers.team.memory"$/, /not a setting/],
      [{ 'bad tier': { containerLimit: 5 } }, /"tiers"$/, /"bad tier"/],
      [{ '': { containerLimit: 5 } }, /"tiers"$/, /tier name/],
      [{ ['x'.repeat(10_000)]: { containerLimit: 5 } }, /"tiers"$/, /tier name/],
    ]
    for (const [tiers, setting, message] of cases) {
      const file = join(dir, 'bad-tiers.json')
      writeFileSync(file, JSON.stringify({ tiers }))
      fails({ SYNTIC_CONFIG: file }, setting, message)
    }
  })

  it('keeps tier names off Object.prototype', () => {
    const file = join(dir, 'proto-tiers.json')
    writeFileSync(file, '{"tiers": {"__proto__": {"containerLimit": 3}}}')
    const tiers = loadConfig({ SYNTIC_CONFIG: file }, dir).tiers
    assert.ok(tiers !== undefined)
    assert.equal(Object.getPrototypeOf(tiers), null)
    assert.deepEqual(Object.getOwnPropertyDescriptor(tiers, '__proto__')?.value, {
      containerLimit: 3,
    })
  })

  it('ignores empty environment values', () => {
    const config = loadConfig({ PORT: '', HOST: '  ', SYNTIC_UPSTREAM_URL: '' }, dir)
    assert.equal(config.port, 8080)
    assert.equal(config.host, '127.0.0.1')
    assert.equal(config.upstream, undefined)
  })
})
