import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { openStore } from '@syntic/server'
import { keysCommand } from './keys.js'

const here = dirname(fileURLToPath(import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'syntic-keys-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

interface Run {
  status: number | null
  stdout: string
  stderr: string
}

interface Where {
  home?: string
  cwd?: string
  env?: NodeJS.ProcessEnv
}

function environment(where: Where): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.SYNTIC_DATABASE_URL
  delete env.SYNTIC_HOME
  if (where.home !== undefined) env.SYNTIC_HOME = where.home
  return Object.assign(env, where.env)
}

// A real process running the command, as `syntic keys ...` does once main.ts has it: for exit
// codes, output as a script sees it, and commander's own errors.
const entry = `import { keysCommand } from ${JSON.stringify(pathToFileURL(join(here, 'keys.js')).href)}
await keysCommand().parseAsync(process.argv.slice(1), { from: 'user' })`

function spawned(args: string[], where: Where = {}): Run {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', entry, '--', ...args], {
    cwd: where.cwd ?? scratch,
    env: environment(where),
    encoding: 'utf8',
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** The same command in this process, with its own streams: quick, and can pass a NUL. */
async function keys(args: string[], where: Where = {}): Promise<Run> {
  const run: Run = { status: 0, stdout: '', stderr: '' }
  await keysCommand({
    env: environment(where),
    cwd: () => where.cwd ?? scratch,
    stdout: (text) => {
      run.stdout += text
    },
    stderr: (text) => {
      run.stderr += text
    },
    setExitCode: (code) => {
      run.status = code
    },
  }).parseAsync(args, { from: 'user' })
  return run
}

function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? ''
}

async function authenticate(home: string, key: string) {
  const store = await openStore({ home })
  try {
    return await store.authenticate(key)
  } finally {
    await store.close()
  }
}

test('keys create prints a summary, then the key alone on the last line', async () => {
  const home = join(scratch, 'create')
  const run = spawned(['create', '--org', 'acme', '--workspace', 'research'], { home })
  assert.equal(run.status, 0, run.stderr)
  const key = lastLine(run.stdout)
  assert.match(key, /^sk_live_[0-9A-Za-z]{43}$/)
  assert.match(run.stdout, /^Created key_[0-9A-Za-z]{22} in org acme, workspace research\.\n/)
  assert.equal(run.stdout.split(key).length, 2, 'the key is printed once')
  const principal = await authenticate(home, key)
  assert.equal(principal?.org, 'acme')
  assert.equal(principal?.workspace, 'research')
})

test('keys create puts keys in the default workspace unless told otherwise', async () => {
  const home = join(scratch, 'default-workspace')
  const run = await keys(['create', '--org', 'acme'], { home })
  assert.equal(run.status, 0, run.stderr)
  assert.match(run.stdout, /workspace default\./)
  assert.equal((await authenticate(home, lastLine(run.stdout)))?.workspace, 'default')
})

test('the store is SYNTIC_HOME taken from the working folder, ./.syntic by default', async () => {
  const cwd = join(scratch, 'cwd')
  mkdirSync(cwd)
  assert.equal(
    (await keys(['create', '--org', 'acme'], { cwd, env: { SYNTIC_HOME: '' } })).status,
    0,
  )
  assert.ok(existsSync(join(cwd, '.syntic', 'syntic.db')))
  assert.equal((await keys(['create', '--org', 'acme'], { cwd, home: 'relative/home' })).status, 0)
  assert.ok(existsSync(join(cwd, 'relative', 'home', 'syntic.db')))
})

test('keys revoke by id or by key refuses the key at once', async () => {
  const home = join(scratch, 'revoke')
  const first = lastLine((await keys(['create', '--org', 'acme'], { home })).stdout)
  const second = lastLine((await keys(['create', '--org', 'acme'], { home })).stdout)
  const id = (await authenticate(home, first))?.keyId
  assert.ok(id)

  const byId = spawned(['revoke', id], { home })
  assert.equal(byId.status, 0, byId.stderr)
  assert.match(byId.stdout, new RegExp(`^Revoked ${id} \\(org acme, workspace default, sk_live_`))
  assert.equal(await authenticate(home, first), null)
  assert.ok(await authenticate(home, second))

  const bySecret = await keys(['revoke', second], { home })
  assert.equal(bySecret.status, 0, bySecret.stderr)
  assert.ok(!bySecret.stdout.includes(second))
  assert.equal(await authenticate(home, second), null)
})

test('keys revoke of an unknown key exits 1 without repeating what it was given', async () => {
  const home = join(scratch, 'revoke-unknown')
  await keys(['create', '--org', 'acme'], { home })
  const unknown = `sk_live_${'A'.repeat(43)}`
  const real = spawned(['revoke', unknown], { home })
  assert.equal(real.status, 1)
  assert.equal(real.stderr, 'syntic: no key has that id or secret\n')
  assert.equal(real.stdout, '')
  for (const arg of ['', 'key_unknown', "' OR '1'='1", 'key_\u0000', 'x'.repeat(10240)]) {
    const run = await keys(['revoke', arg], { home })
    assert.equal(run.status, 1, arg.slice(0, 20))
    assert.equal(run.stderr, 'syntic: no key has that id or secret\n')
    assert.equal(run.stdout, '')
  }
  const missing = spawned(['revoke'], { home })
  assert.notEqual(missing.status, 0)
  assert.match(missing.stderr, /key-id-or-secret/)
})

test('keys list shows ids, orgs, workspaces and prefixes, never the keys', async () => {
  const home = join(scratch, 'list')
  assert.equal((await keys(['list'], { home })).stdout, 'No keys.\n')
  const acme = lastLine((await keys(['create', '--org', 'acme'], { home })).stdout)
  const globex = lastLine(
    (await keys(['create', '--org', 'globex', '--workspace', 'ops'], { home })).stdout,
  )
  assert.equal((await keys(['revoke', globex], { home })).status, 0)

  const all = spawned(['list'], { home })
  assert.equal(all.status, 0, all.stderr)
  const lines = all.stdout.trimEnd().split('\n')
  assert.match(lines[0]!, /^ID\s+ORG\s+WORKSPACE\s+PREFIX\s+CREATED\s+REVOKED$/)
  assert.equal(lines.length, 3)
  assert.match(lines[1]!, /^key_\S+\s+acme\s+default\s+sk_live_\S{4}\s+\d{4}-\S+Z\s+-$/)
  assert.match(lines[2]!, /^key_\S+\s+globex\s+ops\s+sk_live_\S{4}\s+\d{4}-\S+Z\s+\d{4}-\S+Z$/)
  for (const key of [acme, globex]) {
    assert.ok(!all.stdout.includes(key))
    assert.ok(!all.stdout.includes(key.slice(12)))
    assert.ok(all.stdout.includes(key.slice(0, 12)))
  }

  const json = await keys(['list', '--org', 'globex', '--json'], { home })
  assert.equal(json.status, 0, json.stderr)
  const records = JSON.parse(json.stdout) as Array<Record<string, unknown>>
  assert.equal(records.length, 1)
  assert.deepEqual(Object.keys(records[0]!).sort(), [
    'createdAt',
    'id',
    'org',
    'prefix',
    'revokedAt',
    'workspace',
  ])
  assert.equal(records[0]?.org, 'globex')
  assert.ok(!json.stdout.includes(globex))
  assert.equal((await keys(['list', '--org', 'initech'], { home })).stdout, 'No keys.\n')
})

const HOSTILE_NAMES = [
  '',
  "acme'; DROP TABLE orgs; --",
  'a b',
  '../etc',
  'ac\u0000me',
  '\u001b]0;pwned\u0007',
  'x'.repeat(65),
  'x'.repeat(10 * 1024),
]

function assertNameRefused(run: Run, name: string): void {
  assert.equal(run.status, 2, JSON.stringify(name.slice(0, 40)))
  assert.match(run.stderr, /^syntic: (org|workspace) name must be 1 to 64 letters, digits/)
  if (name.length > 3) assert.ok(!run.stderr.includes(name))
  assert.equal(run.stdout, '')
}

test('bad org and workspace names exit 2 with a message, touching nothing', async () => {
  const home = join(scratch, 'bad-names')
  for (const name of HOSTILE_NAMES) {
    for (const args of [
      ['create', '--org', name],
      ['create', '--org', 'acme', '--workspace', name],
      ['list', '--org', name],
    ]) {
      assertNameRefused(await keys(args, { home }), name)
    }
  }
  const quoted = "acme'; DROP TABLE orgs; --"
  assertNameRefused(spawned(['create', '--org', quoted], { home }), quoted)
  assert.ok(!existsSync(home))
  const missing = spawned(['create'], { home })
  assert.notEqual(missing.status, 0)
  assert.match(missing.stderr, /--org/)
})

test('a database URL that is not PostgreSQL exits 1 without showing its password', async () => {
  const run = await keys(['list'], {
    home: join(scratch, 'bad-url'),
    env: { SYNTIC_DATABASE_URL: 'mysql://root:hunter2@127.0.0.1/syntic' },
  })
  assert.equal(run.status, 1)
  assert.match(run.stderr, /^syntic: cannot open the key store: .*postgres:\/\//)
  assert.ok(!run.stderr.includes('hunter2'))
})
