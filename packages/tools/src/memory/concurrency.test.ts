import assert from 'node:assert/strict'
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { PathJail } from '../jail/index.js'
import { LOCK_NAME, withMemoryLock } from './lock.js'
import { type MemoryOptions, MemoryTool } from './memory.js'
import { DISPLAY_ROOT } from './paths.js'

let base: string
let counter = 0

before(() => {
  base = mkdtempSync(join(tmpdir(), 'syntic-memory-lock-'))
})

after(() => rmSync(base, { recursive: true, force: true }))

function freshDir(): string {
  const dir = join(base, `m${++counter}`)
  mkdirSync(dir, { mode: 0o700 })
  return dir
}

async function ok(tool: MemoryTool, input: unknown): Promise<string> {
  const result = await tool.run(input)
  assert.equal(result.is_error, false, result.output)
  return result.output
}

function hidden(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) =>
    p.split('/').some((part) => part.startsWith('.syntic-')),
  )
}

/** A file of numbered markers, each to be rewritten by exactly one edit. */
function markers(owners: string[], count: number): string {
  const lines = ['# shared notes']
  for (const owner of owners) {
    for (let i = 0; i < count; i++) lines.push(`- item ${owner}-${i}: [todo ${owner}-${i}]`)
  }
  return `${lines.join('\n')}\n`
}

function plantLock(dir: string, record: object | string): void {
  writeFileSync(
    join(dir, LOCK_NAME),
    typeof record === 'string' ? record : JSON.stringify(record),
    { mode: 0o600 },
  )
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', ''])
  assert.ok(child.pid)
  return child.pid
}

/** Waits less for the lock, so the busy case does not take five seconds. */
class QuickLockMemory extends MemoryTool {
  constructor(options: MemoryOptions, waitMs: number) {
    super(options)
    this.lockOptions = { waitMs }
  }
}

describe('memory: concurrency in one process', () => {
  it('50 concurrent edits from two instances all land', async () => {
    const dir = freshDir()
    const first = new MemoryTool({ dir })
    const second = new MemoryTool({ dir })
    await ok(first, { command: 'write', path: 'shared.md', content: markers(['x'], 50) })
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? first : second).run({
          command: 'edit',
          path: '/memories/shared.md',
          old_text: `[todo x-${i}]`,
          new_text: `[done x-${i}]`,
        }),
      ),
    )
    for (const result of results) assert.equal(result.is_error, false, result.output)
    const text = readFileSync(join(dir, 'shared.md'), 'utf8')
    assert.equal(text, markers(['x'], 50).replaceAll('[todo', '[done'))
    assert.deepEqual(hidden(dir), [])
  })

  it('readers see a whole old or whole new file while writers replace it', async () => {
    const dir = freshDir()
    const writer = new MemoryTool({ dir })
    const reader = new MemoryTool({ dir })
    const a = 'A'.repeat(100_000)
    const b = 'B'.repeat(100_000)
    await ok(writer, { command: 'write', path: 'big.md', content: a })
    const writes = Array.from({ length: 10 }, (_, i) =>
      writer.run({ command: 'write', path: 'big.md', content: i % 2 ? a : b }),
    )
    const reads = Array.from({ length: 30 }, () => reader.run({ command: 'read', path: 'big.md' }))
    for (const result of await Promise.all(writes)) assert.equal(result.is_error, false)
    for (const result of await Promise.all(reads)) {
      assert.equal(result.is_error, false, result.output)
      assert.ok(result.output === a || result.output === b, 'a torn read')
    }
  })
})

describe('memory: concurrency across processes', () => {
  const moduleUrl = new URL('./index.js', import.meta.url).href
  // Each child edits its own markers; the start time lines them up so their edits interleave.
  const child = `
    const [, url, dir, owner, count, startAt] = process.argv
    const { MemoryTool } = await import(url)
    const tool = new MemoryTool({ dir })
    while (Date.now() < Number(startAt)) await new Promise((r) => setTimeout(r, 5))
    let failed = 0
    for (let i = 0; i < Number(count); i++) {
      const result = await tool.run({
        command: 'edit',
        path: 'memories/shared.md',
        old_text: '[todo ' + owner + '-' + i + ']',
        new_text: '[done ' + owner + '-' + i + ']',
      })
      if (result.is_error) { failed++; process.stderr.write(result.output + '\\n') }
    }
    process.exit(failed ? 1 : 0)
  `

  function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const proc: ChildProcess = spawn(
        process.execPath,
        ['--input-type=module', '-e', child, moduleUrl, ...args],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      )
      let stderr = ''
      proc.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      proc.on('error', reject)
      proc.on('close', (code) => resolve({ code, stderr }))
    })
  }

  it('two processes doing 20 edits each on one file: all 40 land, the file is intact', async () => {
    const dir = freshDir()
    const tool = new MemoryTool({ dir })
    await ok(tool, { command: 'write', path: 'shared.md', content: markers(['p', 'q'], 20) })
    const startAt = String(Date.now() + 700)
    const results = await Promise.all([
      run([dir, 'p', '20', startAt]),
      run([dir, 'q', '20', startAt]),
    ])
    for (const result of results) assert.equal(result.code, 0, result.stderr)
    assert.equal(
      readFileSync(join(dir, 'shared.md'), 'utf8'),
      markers(['p', 'q'], 20).replaceAll('[todo', '[done'),
    )
    assert.deepEqual(hidden(dir), [])
  })

  it('three processes racing to take over a dead holder’s lock lose no edit', async () => {
    const dir = freshDir()
    const tool = new MemoryTool({ dir })
    await ok(tool, { command: 'write', path: 'shared.md', content: markers(['r', 's', 't'], 10) })
    plantLock(dir, { pid: deadPid(), host: hostname(), time: Date.now(), token: 'dead' })
    const startAt = String(Date.now() + 700)
    const results = await Promise.all(
      ['r', 's', 't'].map((owner) => run([dir, owner, '10', startAt])),
    )
    for (const result of results) assert.equal(result.code, 0, result.stderr)
    assert.equal(
      readFileSync(join(dir, 'shared.md'), 'utf8'),
      markers(['r', 's', 't'], 10).replaceAll('[todo', '[done'),
    )
    assert.deepEqual(hidden(dir), [])
  })
})

describe('memory: the lock file', () => {
  it('is taken and removed around every change, and hidden from list', async () => {
    const dir = freshDir()
    const tool = new MemoryTool({ dir })
    const jail = await PathJail.open(dir, DISPLAY_ROOT)
    let seen = ''
    await withMemoryLock(jail, async () => {
      seen = readFileSync(join(dir, LOCK_NAME), 'utf8')
    })
    const record = JSON.parse(seen) as { pid: number; host: string; time: number; token: string }
    assert.equal(record.pid, process.pid)
    assert.equal(record.host, hostname())
    assert.ok(Math.abs(Date.now() - record.time) < 5000)
    assert.equal(existsSync(join(dir, LOCK_NAME)), false)
    await ok(tool, { command: 'write', path: 'a.md', content: 'a' })
    assert.deepEqual(hidden(dir), [])
  })

  it('waits for a live holder, then reports the folder busy', async () => {
    const dir = freshDir()
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'])
    try {
      assert.ok(sleeper.pid)
      plantLock(dir, { pid: sleeper.pid, host: hostname(), time: Date.now(), token: 'other' })
      const tool = new QuickLockMemory({ dir }, 300)
      await ok(tool, { command: 'list' })
      const started = Date.now()
      const result = await tool.run({ command: 'write', path: 'a.md', content: 'a' })
      assert.equal(result.is_error, true)
      assert.match(result.output, /^Error: the memory folder is busy/)
      assert.ok(Date.now() - started >= 250)
      assert.equal(existsSync(join(dir, 'a.md')), false)
      // Reads do not need the lock.
      await ok(tool, { command: 'list' })
      // The live holder's lock is left alone.
      assert.match(readFileSync(join(dir, LOCK_NAME), 'utf8'), /"other"/)
    } finally {
      sleeper.kill()
    }
  })

  it('gives up after about five seconds by default', async () => {
    const dir = freshDir()
    plantLock(dir, { pid: 1, host: `not-${hostname()}`, time: Date.now(), token: 'remote' })
    const tool = new MemoryTool({ dir })
    const started = Date.now()
    const result = await tool.run({ command: 'delete', path: 'x.md' })
    const waited = Date.now() - started
    assert.match(result.output, /^Error: the memory folder is busy/)
    assert.ok(waited >= 4500 && waited < 8000, `waited ${waited} ms`)
  })

  it('takes over a lock whose holder is dead', async () => {
    const dir = freshDir()
    plantLock(dir, { pid: deadPid(), host: hostname(), time: Date.now(), token: 'dead' })
    const tool = new QuickLockMemory({ dir }, 2000)
    await ok(tool, { command: 'write', path: 'a.md', content: 'a' })
    assert.deepEqual(hidden(dir), [])
  })

  it('takes over a lock older than 30 s even if its holder looks alive', async () => {
    const dir = freshDir()
    plantLock(dir, { pid: 1, host: 'elsewhere', time: Date.now() - 31_000, token: 'old' })
    const tool = new QuickLockMemory({ dir }, 2000)
    await ok(tool, { command: 'write', path: 'a.md', content: 'a' })
    assert.deepEqual(hidden(dir), [])
  })

  it('takes over a lock left by an earlier process with this same pid', async () => {
    const dir = freshDir()
    plantLock(dir, { pid: process.pid, host: hostname(), time: Date.now(), token: 'previous' })
    const tool = new QuickLockMemory({ dir }, 2000)
    await ok(tool, { command: 'write', path: 'a.md', content: 'a' })
  })

  it('takes over a lock file that is not ours (garbage or a symlink)', async () => {
    const dir = freshDir()
    plantLock(dir, 'not json')
    const tool = new QuickLockMemory({ dir }, 2000)
    await ok(tool, { command: 'write', path: 'a.md', content: 'a' })
    const outside = join(base, `outside-${counter}`)
    writeFileSync(outside, 'SECRET')
    symlinkSync(outside, join(dir, LOCK_NAME))
    await ok(tool, { command: 'write', path: 'b.md', content: 'b' })
    assert.equal(readFileSync(outside, 'utf8'), 'SECRET')
    assert.deepEqual(hidden(dir), [])
  })
})
