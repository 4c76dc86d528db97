import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ToolError } from '../result.js'
import { PathJail } from './jail.js'

const INSIDE = 'INSIDE-CONTENT'
const OUTSIDE = 'OUTSIDE-SECRET'

/** Every file below a folder with a hash of its content, to prove nothing outside changed. */
function snapshot(dir: string): Map<string, string> {
  const result = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name)
      if (e.isDirectory()) walk(full)
      else if (e.isFile()) {
        result.set(full, createHash('sha256').update(readFileSync(full)).digest('hex'))
      } else result.set(full, 'link')
    }
  }
  walk(dir)
  return result
}

describe('path jail: hostile paths', () => {
  let base: string
  let ws: string
  let outside: string
  let jail: PathJail

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'syntic-jail-'))
    ws = join(base, 'ws')
    outside = join(base, 'outside')
    mkdirSync(join(ws, 'sub', 'deep'), { recursive: true })
    mkdirSync(join(outside, 'dir'), { recursive: true })
    for (const f of ['secret', 'passwd', 'dir/secret']) writeFileSync(join(outside, f), OUTSIDE)
    for (const f of ['file', 'sub/file', 'sub/deep/file']) writeFileSync(join(ws, f), INSIDE)
    symlinkSync('..', join(ws, 'up'))
    symlinkSync(outside, join(ws, 'abs'))
    symlinkSync('../outside', join(ws, 'rel'))
    symlinkSync(join(outside, 'secret'), join(ws, 'filelink'))
    symlinkSync('sub', join(ws, 'inner'))
    symlinkSync('loop', join(ws, 'loop'))
    symlinkSync('chain2', join(ws, 'chain1'))
    symlinkSync('rel/dir', join(ws, 'chain2'))
    symlinkSync('/etc', join(ws, 'etc'))
    symlinkSync('../../outside', join(ws, 'sub', 'back'))
    jail = await PathJail.open(ws, '/workspace')
  })

  after(() => rmSync(base, { recursive: true, force: true }))

  function generatedPaths(): string[] {
    const prefixes = ['', './', '/workspace/', '//workspace//', '/workspace/./', 'sub/', 'sub/../']
    const hops = [
      '..',
      '../..',
      '../../..',
      'sub/../..',
      'up',
      'up/ws/up',
      'abs',
      'rel',
      'chain1',
      'chain2',
      'loop',
      'etc',
      'sub/back',
      'inner/back',
      'inner/../up',
      '%2e%2e',
      '%252e%252e',
      '..%2f..',
      '..\\..',
      '\u2025',
      '\uff0e\uff0e',
      '.../...',
      '.%00.',
      '',
    ]
    const targets = ['secret', 'dir/secret', 'passwd', 'outside/secret', 'ws/file', 'file', 'x']
    const paths: string[] = []
    for (const p of prefixes)
      for (const h of hops) for (const t of targets) paths.push(`${p}${h}/${t}`)
    for (const t of targets) {
      paths.push(`/${t}`, `${outside}/${t}`, `${base}/${t}`, `/workspace/../outside/${t}`)
      paths.push(
        `${t}\0`,
        `file\0/../../${t}`,
        `${'a/'.repeat(2100)}${t}`,
        `${'../'.repeat(40)}${t}`,
      )
      paths.push(
        `${'x'.repeat(300)}/${t}`,
        `/proc/self/root${outside}/${t}`,
        `/workspace\0/../${t}`,
      )
    }
    return paths
  }

  it('never reads a file outside the folder', async () => {
    const paths = generatedPaths()
    assert.ok(paths.length > 1000)
    let reads = 0
    for (const path of paths) {
      let content: string | undefined
      try {
        const handle = await jail.openExisting(jail.locate(path))
        try {
          if ((await handle.stat()).isFile()) content = await handle.readFile('utf8')
        } finally {
          await handle.close()
        }
      } catch (error) {
        assert.ok(error instanceof ToolError, `${path}: ${String(error)}`)
        continue
      }
      if (content !== undefined) {
        reads++
        assert.notEqual(content, OUTSIDE, `read outside through ${JSON.stringify(path)}`)
        assert.ok(!content.startsWith('root:'), `read /etc/passwd through ${JSON.stringify(path)}`)
      }
    }
    assert.ok(reads > 0, 'the suite must also exercise paths that are allowed')
  })

  it('never writes outside the folder, even through created parents', async () => {
    const before = snapshot(outside)
    const paths = generatedPaths().filter((p) => !p.includes('etc'))
    for (const path of paths) {
      try {
        const entry = await jail.entry(jail.locate(`${path}-new`), { createParents: true })
        try {
          await entry.writeAtomic('written', { mode: 0o644 })
        } finally {
          await entry.close()
        }
      } catch (error) {
        assert.ok(error instanceof ToolError, `${path}: ${String(error)}`)
      }
    }
    assert.deepEqual(snapshot(outside), before)
  })

  it('refuses a final symlink that points outside, and follows one that stays inside', async () => {
    await assert.rejects(jail.openExisting(jail.locate('filelink')), /resolves outside \/workspace/)
    const handle = await jail.openExisting(jail.locate('/workspace/inner/file'))
    assert.equal(await handle.readFile('utf8'), INSIDE)
    await handle.close()
  })

  it('replaces a symlink named as the target of a write instead of writing through it', async () => {
    symlinkSync(join(outside, 'passwd'), join(ws, 'victim'))
    const entry = await jail.entry(jail.locate('victim'))
    await entry.writeAtomic('replaced', { mode: 0o644 })
    await entry.close()
    assert.equal(readFileSync(join(outside, 'passwd'), 'utf8'), OUTSIDE)
    assert.equal(readFileSync(join(ws, 'victim'), 'utf8'), 'replaced')
  })

  it('writing through a hard link to an outside file leaves that file unchanged', async () => {
    const target = join(outside, 'hard')
    writeFileSync(target, OUTSIDE)
    linkSync(target, join(ws, 'hard'))
    const entry = await jail.entry(jail.locate('hard'))
    await entry.writeAtomic('new', { mode: 0o600 })
    await entry.close()
    assert.equal(readFileSync(target, 'utf8'), OUTSIDE)
    assert.equal(statSync(target).nlink, 1)
    assert.equal(readFileSync(join(ws, 'hard'), 'utf8'), 'new')
  })

  it('create is exclusive and atomic', async () => {
    const entry = await jail.entry(jail.locate('made/here/f.txt'), { createParents: true })
    await entry.writeAtomic('one', { mode: 0o644, exclusive: true })
    await assert.rejects(
      entry.writeAtomic('two', { mode: 0o644, exclusive: true }),
      /already exists/,
    )
    await entry.close()
    assert.equal(readFileSync(join(ws, 'made/here/f.txt'), 'utf8'), 'one')
    assert.deepEqual(readdirSync(join(ws, 'made/here')), ['f.txt'])
  })

  it('removeTree never follows a symlink inside the tree', async () => {
    mkdirSync(join(ws, 'trash/a'), { recursive: true })
    writeFileSync(join(ws, 'trash/a/f'), INSIDE)
    symlinkSync(outside, join(ws, 'trash/a/out'))
    const entry = await jail.entry(jail.locate('trash'))
    await entry.removeTree()
    await entry.close()
    assert.equal(readFileSync(join(outside, 'secret'), 'utf8'), OUTSIDE)
    assert.throws(() => statSync(join(ws, 'trash')))
  })

  it('refuses to open a FIFO outside before opening it, so a waiting writer is not released', async () => {
    const fifo = join(outside, 'pipe')
    const marker = join(outside, 'released')
    spawnSync('mkfifo', [fifo])
    symlinkSync(fifo, join(ws, 'pipe-link'))
    const writer = spawn('sh', ['-c', `echo x > ${fifo} && touch ${marker}`], { stdio: 'ignore' })
    try {
      await assert.rejects(jail.openExisting(jail.locate('pipe-link')), /resolves outside/)
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.equal(existsSync(marker), false, 'the open released the writer')
    } finally {
      writer.kill('SIGKILL')
      rmSync(join(ws, 'pipe-link'))
    }
  })

  it('keeps setuid and setgid bits when replacing a file as root', async () => {
    if (process.getuid?.() !== 0) return
    const entry = await jail.entry(jail.locate('setuid-tool'))
    await entry.writeAtomic('#!/bin/sh\n', { mode: 0o6755, owner: { uid: 0, gid: 0 } })
    await entry.close()
    assert.equal(statSync(join(ws, 'setuid-tool')).mode & 0o7777, 0o6755)
  })

  it('a symlink swapped in between check and write never redirects the write', async () => {
    const swap = join(ws, 'swap')
    mkdirSync(swap)
    const before = snapshot(outside)
    // Another process flips `swap` between a real folder and a link to the outside as fast as it can.
    const flipper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); const [swap, target] = process.argv.slice(1)
         for (;;) {
           try { fs.rmSync(swap, { recursive: true, force: true }); fs.symlinkSync(target, swap) } catch {}
           try { fs.rmSync(swap, { recursive: true, force: true }); fs.mkdirSync(swap) } catch {}
         }`,
        swap,
        outside,
      ],
      { stdio: 'ignore' },
    )
    try {
      let writes = 0
      for (let i = 0; i < 1500; i++) {
        try {
          const entry = await jail.entry(jail.locate(`swap/f${i}`))
          try {
            await entry.writeAtomic('raced', { mode: 0o644 })
            writes++
          } finally {
            await entry.close()
          }
        } catch {}
        try {
          const handle = await jail.openExisting(jail.locate('swap/secret'))
          const content = await handle.readFile('utf8').finally(() => handle.close())
          assert.notEqual(content, OUTSIDE)
        } catch (error) {
          if (error instanceof assert.AssertionError) throw error
        }
      }
      assert.ok(writes > 0, 'some writes must land while the folder is real')
    } finally {
      flipper.kill('SIGKILL')
    }
    assert.deepEqual(snapshot(outside), before)
  })
})

describe('path jail: the root folder itself', () => {
  it('refuses to work in a root that was renamed away and replaced', async () => {
    const base = mkdtempSync(join(tmpdir(), 'syntic-jail-root-'))
    try {
      const root = join(base, 'root')
      const outside = join(base, 'outside')
      mkdirSync(root)
      mkdirSync(outside)
      const jail = await PathJail.open(root, '/workspace')
      renameSync(root, join(base, 'root-moved'))
      symlinkSync(outside, root)
      await assert.rejects(jail.entry(jail.locate('pwn.txt')), /replaced/)
      await assert.rejects(jail.openExisting(jail.locate('/workspace')), /replaced/)
      rmSync(root)
      mkdirSync(root)
      await assert.rejects(jail.entry(jail.locate('pwn.txt')), /replaced/)
      assert.deepEqual(readdirSync(outside), [])
      assert.deepEqual(readdirSync(root), [])
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
