import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { detectCgroups, LocalDriver, removeCgroupParent } from '@syntic/sandbox'
import { sandboxCommand } from './sandbox.js'

const stateDir = mkdtempSync(join(tmpdir(), 'syntic-cli-sandbox-'))
const cgroupParent = `syntic-cli-test-${randomBytes(4).toString('hex')}`
after(() => {
  removeCgroupParent(detectCgroups(), cgroupParent)
  rmSync(stateDir, { recursive: true, force: true })
})

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const out = { stdout: '', stderr: '', code: 0 }
  const command = sandboxCommand({
    stdout: (t) => {
      out.stdout += t
    },
    stderr: (t) => {
      out.stderr += t
    },
    setExitCode: (c) => {
      out.code = c
    },
  })
  command
    .exitOverride()
    .configureOutput({ writeErr: (t) => (out.stderr += t), writeOut: (t) => (out.stdout += t) })
  for (const sub of command.commands)
    sub.exitOverride().configureOutput({ writeErr: (t) => (out.stderr += t) })
  try {
    await command.parseAsync(args, { from: 'user' })
  } catch {
    out.code = out.code || 1
  }
  return out
}

const where = ['--state-dir', stateDir, '--cgroup-parent', cgroupParent]

const entry = `import { sandboxCommand } from ${JSON.stringify(pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'sandbox.js')).href)}
await sandboxCommand().parseAsync(process.argv.slice(1), { from: 'user' })`

/** The command in its own process, as `syntic sandbox` runs: real exit codes and streams. */
function spawned(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', entry, '--', ...args], {
    encoding: 'utf8',
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('syntic sandbox', () => {
  it('build-image reports the cached image', async () => {
    const out = await cli('build-image')
    assert.equal(out.code, 0, out.stderr)
    assert.match(out.stdout, /^up to date: .*rootfs \(\d/)
  })

  it('run prints the output and exits with the code', async () => {
    const ok = await cli('run', ...where, 'print(6 * 7)')
    assert.deepEqual([ok.code, ok.stdout], [0, '42\n'])
    const bash = await cli('run', ...where, '--language', 'bash', 'echo no >&2; exit 3')
    assert.deepEqual([bash.code, bash.stderr], [3, 'no\n'])
    const slow = await cli('run', ...where, '--timeout', '1', 'while True: pass')
    assert.equal(slow.code, 137)
    assert.match(slow.stderr, /1 s limit/)
  })

  it('rejects malformed options', async () => {
    for (const args of [
      ['run', ...where, '--language', 'ruby', 'x'],
      ['run', ...where, '--timeout', '-5', 'x'],
      ['run', ...where, '--timeout', '1e9', 'x'],
      ['run', ...where],
      ['list', '--cgroup-parent', '../../etc', '--state-dir', stateDir],
      ['list', '--cgroup-parent', 'a\nb', '--state-dir', stateDir],
      ['run', ...where, '--timeout', 'abc', 'x'],
      ['run', ...where, '--timeout', '0', 'x'],
      ['run', ...where, '--timeout', '1.5.5', 'x'],
      ['run', ...where, '--bogus', 'x'],
      ['run', ...where, 'x'.repeat(1024 * 1024 + 1)],
      ['build-image', '--cache-dir'],
      ['teleport'],
    ]) {
      const out = await cli(...args)
      assert.notEqual(out.code, 0, args.join(' ').slice(0, 80))
      assert.doesNotMatch(out.stderr, /\n\s+at /, 'no stack trace')
    }
    const notADir = join(stateDir, 'a-file')
    writeFileSync(notADir, 'x')
    const blocked = await cli('run', '--state-dir', notADir, '--cgroup-parent', cgroupParent, '1')
    assert.equal(blocked.code, 1)
    assert.match(blocked.stderr, /^syntic: /)
  })

  it('runs hostile code as a normal failing run', async () => {
    const nul = await cli('run', ...where, 'print(1)\0')
    assert.equal(nul.code, 1)
    assert.match(nul.stderr, /null bytes|SyntaxError|ValueError/)
    const exits = await cli('run', ...where, '--language', 'bash', 'kill -9 $$')
    assert.notEqual(exits.code, 0)
    assert.equal((await cli('list', ...where)).stdout, 'No sandboxes.\n', 'run removed its sandbox')
  })

  it('prints help for the command and each subcommand, exit 0', () => {
    for (const [args, expected] of [
      [['--help'], /build-image[\s\S]*run[\s\S]*list[\s\S]*clean/],
      [['build-image', '--help'], /--force[\s\S]*--cache-dir/],
      [['run', '--help'], /--language <language>[\s\S]*--timeout <seconds>[\s\S]*--state-dir/],
      [['list', '--help'], /orphans/],
      [['clean', '--help'], /stop the\s+server\s+first/],
    ] as const) {
      const result = spawned([...args])
      assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`)
      assert.match(result.stdout, expected)
    }
  })

  it('exits with the code of the run, and 1 with a message on bad input, as a process', () => {
    const three = spawned(['run', ...where, '--language', 'bash', 'echo out; exit 3'])
    assert.deepEqual([three.status, three.stdout], [3, 'out\n'])
    const bad = spawned(['run', ...where, '--language', 'ruby', 'x'])
    assert.equal(bad.status, 1)
    assert.match(bad.stderr, /ruby/)
    assert.equal(bad.stdout, '')
  })

  it('lists and cleans up orphans', async () => {
    const driver = await LocalDriver.open({ stateDir, cgroupParent })
    const { id } = await driver.create()
    const listed = await cli('list', ...where)
    assert.match(listed.stdout, new RegExp(id))
    const cleaned = await cli('clean', ...where)
    assert.equal(cleaned.stdout, 'Removed 1 sandbox.\n')
    assert.equal((await cli('list', ...where)).stdout, 'No sandboxes.\n')
  })
})
