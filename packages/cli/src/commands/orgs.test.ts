import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { openStore } from '@syntic/server/store'
import { orgsCommand } from './orgs.js'

const here = dirname(fileURLToPath(import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'syntic-orgs-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

interface Run {
  status: number | null
  stdout: string
  stderr: string
}

function environment(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SYNTIC_HOME: home }
  delete env.SYNTIC_DATABASE_URL
  delete env.SYNTIC_CONFIG
  return env
}

async function orgs(args: string[], home: string): Promise<Run> {
  const run: Run = { status: 0, stdout: '', stderr: '' }
  await orgsCommand({
    env: environment(home),
    cwd: () => scratch,
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

const entry = `import { orgsCommand } from ${JSON.stringify(pathToFileURL(join(here, 'orgs.js')).href)}
await orgsCommand().parseAsync(process.argv.slice(1), { from: 'user' })`

function spawned(args: string[], home: string): Run {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', entry, '--', ...args], {
    cwd: scratch,
    env: environment(home),
    encoding: 'utf8',
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

async function stored(home: string, org: string) {
  const store = await openStore({ home })
  try {
    return await store.getOrgSettings(org)
  } finally {
    await store.close()
  }
}

test('orgs set changes only what it is given; orgs show prints it', async () => {
  const home = join(scratch, 'set')
  const first = await orgs(['set', 'acme', '--code-execution', 'off', '--json'], home)
  assert.equal(first.status, 0, first.stderr)
  const printed = JSON.parse(first.stdout) as { codeExecution: boolean; containerLimit: number }
  assert.equal(printed.codeExecution, false)
  assert.equal(printed.containerLimit, 20)

  const second = spawned(
    [
      'set',
      'acme',
      '--container-limit',
      '3',
      '--egress-allow',
      'PyPI.org, *.pythonhosted.org,pypi.org',
      '--tier',
      'team',
    ],
    home,
  )
  assert.equal(second.status, 0, second.stderr)
  const settings = await stored(home, 'acme')
  assert.deepEqual(
    { ...settings, updatedAt: null },
    {
      org: 'acme',
      codeExecution: false,
      containerLimitOverride: 3,
      egressAllowlist: ['pypi.org', '*.pythonhosted.org'],
      tier: 'team',
      updatedAt: null,
    },
  )

  const show = await orgs(['show', 'acme'], home)
  assert.equal(show.status, 0, show.stderr)
  assert.match(show.stdout, /code execution\s+off/)
  assert.match(show.stdout, /container limit\s+3 live containers/)
  assert.match(show.stdout, /override\s+3 live containers/)
  assert.match(show.stdout, /tier\s+team/)
  assert.match(show.stdout, /egress\s+pypi\.org, \*\.pythonhosted\.org/)

  await orgs(['set', 'acme', '--egress-none', '--code-execution', 'ON'], home)
  const after = await stored(home, 'acme')
  assert.deepEqual(after?.egressAllowlist, [])
  assert.equal(after?.codeExecution, true)
  assert.equal(after?.tier, 'team')
})

test('orgs show of an unknown org exits 1; of a new org shows the defaults', async () => {
  const home = join(scratch, 'show')
  const missing = spawned(['show', 'nobody'], home)
  assert.equal(missing.status, 1)
  assert.match(missing.stderr, /there is no organisation nobody/)
  const store = await openStore({ home })
  await store.createKey({ org: 'fresh', workspace: 'default' })
  await store.close()
  const fresh = await orgs(['show', 'fresh'], home)
  assert.equal(fresh.status, 0, fresh.stderr)
  assert.match(fresh.stdout, /code execution\s+on/)
  assert.match(fresh.stdout, /container limit\s+20/)
  assert.match(fresh.stdout, /override\s+none/)
  assert.match(fresh.stdout, /tier\s+default/)
  assert.match(fresh.stdout, /egress\s+none \(no network\)/)
  assert.match(fresh.stdout, /updated\s+never/)
})

test("the container limit comes from the config's tiers unless the org overrides it", async () => {
  const home = join(scratch, 'tiers')
  mkdirSync(home, { recursive: true })
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ tiers: { default: { containerLimit: 7 }, team: { containerLimit: 50 } } }),
  )
  const limits = async (args: string[]) => {
    const run = await orgs([...args, '--json'], home)
    assert.equal(run.status, 0, run.stderr)
    const printed = JSON.parse(run.stdout) as {
      tier: string
      containerLimit: number
      containerLimitOverride: number | null
    }
    return [printed.tier, printed.containerLimitOverride, printed.containerLimit]
  }
  assert.deepEqual(await limits(['set', 'acme', '--code-execution', 'on']), ['default', null, 7])
  assert.deepEqual(await limits(['set', 'acme', '--tier', 'team']), ['team', null, 50])
  assert.deepEqual(await limits(['set', 'acme', '--container-limit', '5']), ['team', 5, 5])
  assert.deepEqual(await limits(['show', 'acme']), ['team', 5, 5])
  assert.deepEqual(await limits(['set', 'acme', '--container-limit', '0']), ['team', 0, 0])
  assert.deepEqual(await limits(['set', 'acme', '--container-limit', 'tier']), ['team', null, 50])
  assert.deepEqual(await limits(['set', 'acme', '--tier', 'gold']), ['gold', null, 7])
  const show = await orgs(['show', 'acme'], home)
  assert.match(show.stdout, /tier\s+gold\n/)
  assert.match(show.stdout, /override\s+none \(the tier's limit\)/)
  assert.match(show.stdout, /container limit\s+7 live containers/)

  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ tiers: { team: { containerLimit: -1 } } }),
  )
  const broken = await orgs(['show', 'acme'], home)
  assert.equal(broken.status, 1)
  assert.match(broken.stderr, /"tiers.team.containerLimit"/)
})

test('bad values are usage errors (exit 2) and change nothing', async () => {
  const home = join(scratch, 'bad')
  await orgs(['set', 'acme', '--tier', 'start'], home)
  const bad: string[][] = [
    ['set', 'acme'],
    ['set', 'acme', '--code-execution', 'maybe'],
    ['set', 'acme', '--container-limit', '-1'],
    ['set', 'acme', '--container-limit', '1.5'],
    ['set', 'acme', '--container-limit', '99999999'],
    ['set', 'acme', '--container-limit', 'ten'],
    ['set', 'acme', '--container-limit', 'tiers'],
    ['set', 'acme', '--container-limit', ''],
    ['set', 'acme', '--egress-allow', 'http://pypi.org'],
    ['set', 'acme', '--egress-allow', 'pypi.org:443'],
    ['set', 'acme', '--egress-allow', '10.0.0.1'],
    ['set', 'acme', '--egress-allow', 'localhost'],
    ['set', 'acme', '--egress-allow', ''],
    ['set', 'acme', '--egress-allow', `${'a'.repeat(300)}.com`],
    ['set', 'acme', '--egress-allow', 'a.com\u0000'],
    ['set', 'acme', '--egress-allow', Array.from({ length: 101 }, (_, i) => `h${i}.com`).join(',')],
    ['set', 'acme', '--egress-allow', 'pypi.org', '--egress-none'],
    ['set', 'acme', '--tier', 'x'.repeat(65)],
    ['set', 'acme', '--tier', 'bad tier'],
    ['set', "acme'; DROP TABLE orgs; --", '--tier', 'x'],
    ['set', 'x'.repeat(10_000), '--tier', 'x'],
    ['show', 'a\u0000b'],
  ]
  for (const args of bad) {
    const run = await orgs(args, home)
    assert.equal(run.status, 2, `${args.join(' ').slice(0, 80)}: ${run.stderr}`)
    assert.match(run.stderr, /^syntic: /)
    assert.ok(run.stderr.length < 400)
  }
  const settings = await stored(home, 'acme')
  assert.equal(settings?.tier, 'start')
  assert.equal(settings?.codeExecution, true)
  assert.deepEqual(settings?.egressAllowlist, [])
})

test('help for orgs, show and set exits 0; unknown options and commands exit non-zero', () => {
  const home = mkdtempSync(join(scratch, 'help-'))
  for (const [args, expected] of [
    [['--help'], /show[\s\S]*set/],
    [['show', '--help'], /<org>[\s\S]*--json/],
    [['set', '--help'], /--code-execution[\s\S]*--container-limit[\s\S]*within 5 seconds/],
  ] as const) {
    const run = spawned([...args], home)
    assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`)
    assert.match(run.stdout, expected)
  }
  for (const args of [['set', 'acme', '--bogus'], ['teleport'], ['show']]) {
    const run = spawned(args, home)
    assert.notEqual(run.status, 0, args.join(' '))
    assert.match(run.stderr, /error/)
  }
})
