import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { detectCgroups, LocalDriver } from '@syntic/sandbox'
import { sandboxCommand } from './sandbox.js'

const stateDir = mkdtempSync(join(tmpdir(), 'syntic-cli-sandbox-'))
const cgroupParent = `syntic-cli-test-${randomBytes(4).toString('hex')}`
after(() => {
  const layout = detectCgroups()
  for (const mount of layout.version === 2 ? [layout.root] : Object.values(layout.controllers)) {
    try {
      rmdirSync(join(mount, cgroupParent))
    } catch {
      // Never created.
    }
  }
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
    ]) {
      const out = await cli(...args)
      assert.notEqual(out.code, 0, args.join(' '))
    }
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
