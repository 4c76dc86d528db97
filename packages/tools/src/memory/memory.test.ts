import assert from 'node:assert/strict'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { MemoryTool } from './memory.js'

let base: string
let counter = 0

before(() => {
  base = mkdtempSync(join(tmpdir(), 'syntic-memory-'))
})

after(() => rmSync(base, { recursive: true, force: true }))

/** A memory folder of its own (not created yet, so the tool makes it) and a tool on it. */
function fresh(options: { maxFileBytes?: number; maxTotalBytes?: number; maxFiles?: number } = {}) {
  const dir = join(base, `m${++counter}`)
  return { dir, tool: new MemoryTool({ dir, ...options }) }
}

async function ok(tool: MemoryTool, input: unknown): Promise<string> {
  const result = await tool.run(input)
  assert.equal(result.is_error, false, result.output)
  return result.output
}

async function fails(tool: MemoryTool, input: unknown): Promise<string> {
  const result = await tool.run(input)
  assert.equal(result.is_error, true, `expected an error, got: ${result.output}`)
  assert.match(result.output, /^Error: /)
  return result.output
}

function mode(path: string): number {
  return lstatSync(path).mode & 0o777
}

/** Names in the folder the model could see: the tool's own hidden files left out. */
function visible(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => !p.split('/').some((part) => part.startsWith('.syntic-')))
    .sort()
}

function leftovers(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) =>
    p.split('/').some((part) => part.startsWith('.syntic-')),
  )
}

describe('memory: commands', () => {
  it('list on a new folder says there are no memories yet, with the total and limit', async () => {
    const { dir, tool } = fresh()
    assert.equal(
      await ok(tool, { command: 'list' }),
      'No memories yet: /memories is empty.\nTotal: 0 bytes in 0 files (limit: 16,777,216 bytes)',
    )
    assert.ok(statSync(dir).isDirectory())
  })

  it('write creates, then overwrites, and says which with the size', async () => {
    const { dir, tool } = fresh()
    assert.equal(
      await ok(tool, { command: 'write', path: '/memories/notes.md', content: 'hello world' }),
      'Created /memories/notes.md (11 bytes)',
    )
    assert.equal(readFileSync(join(dir, 'notes.md'), 'utf8'), 'hello world')
    assert.equal(
      await ok(tool, { command: 'write', path: '/memories/notes.md', content: 'x' }),
      'Overwrote /memories/notes.md (1 byte)',
    )
    assert.equal(readFileSync(join(dir, 'notes.md'), 'utf8'), 'x')
    assert.equal(
      await ok(tool, { command: 'write', path: 'empty.md', content: '' }),
      'Created /memories/empty.md (0 bytes)',
    )
    assert.equal(
      await ok(tool, { command: 'write', path: 'big.md', content: 'é'.repeat(617) }),
      'Created /memories/big.md (1,234 bytes)',
    )
    assert.deepEqual(leftovers(dir), [])
  })

  it('read returns the content exactly as stored', async () => {
    const { tool } = fresh()
    const content = '\uFEFF# Prefs\n\n- likes tea 🍵\r\n  trailing   \n\n'
    await ok(tool, { command: 'write', path: 'prefs.md', content })
    assert.equal(await ok(tool, { command: 'read', path: '/memories/prefs.md' }), content)
    await ok(tool, { command: 'write', path: 'empty.md', content: '' })
    assert.equal(await ok(tool, { command: 'read', path: 'empty.md' }), '')
  })

  it('read: missing file, folder, root, binary and invalid UTF-8 are errors', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: 'sub/a.md', content: 'a' })
    assert.equal(
      await fails(tool, { command: 'read', path: '/memories/x.md' }),
      'Error: /memories/x.md does not exist',
    )
    assert.match(
      await fails(tool, { command: 'read', path: 'nope/x.md' }),
      /\/memories\/nope does not exist/,
    )
    assert.match(await fails(tool, { command: 'read', path: 'sub' }), /is a folder; use list/)
    for (const root of ['/memories', 'memories', '/memories/', '.']) {
      assert.match(await fails(tool, { command: 'read', path: root }), /is a folder; use list/)
    }
    writeFileSync(join(dir, 'bin.dat'), Buffer.from([0x89, 0x50, 0x00, 0x01]))
    assert.match(await fails(tool, { command: 'read', path: 'bin.dat' }), /binary/)
    writeFileSync(join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]))
    assert.match(await fails(tool, { command: 'read', path: 'latin1.txt' }), /not valid UTF-8/)
    assert.match(
      await fails(tool, { command: 'edit', path: 'latin1.txt', old_text: 'caf', new_text: 'x' }),
      /not valid UTF-8/,
    )
  })

  it('edit replaces text that appears exactly once', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: 'n.md', content: 'name: Ada\ncity: Paris\n' })
    assert.equal(
      await ok(tool, { command: 'edit', path: 'n.md', old_text: 'Paris', new_text: 'Lyon' }),
      'Edited /memories/n.md: replaced 1 occurrence of old_text (21 bytes now)',
    )
    assert.equal(readFileSync(join(dir, 'n.md'), 'utf8'), 'name: Ada\ncity: Lyon\n')
    // new_text is literal: no `$&` expansion as String.replace would do.
    await ok(tool, { command: 'edit', path: 'n.md', old_text: 'Lyon', new_text: "$& $' $1" })
    assert.equal(readFileSync(join(dir, 'n.md'), 'utf8'), "name: Ada\ncity: $& $' $1\n")
    assert.equal(mode(join(dir, 'n.md')), 0o600)
  })

  it('edit says how many times old_text was found when it is not exactly once', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: 'n.md', content: 'aaa b b b' })
    const edit = (old_text: string) =>
      fails(tool, { command: 'edit', path: 'n.md', old_text, new_text: 'Z' })
    assert.match(await edit('zzz'), /^Error: old_text found 0 times in \/memories\/n\.md/)
    assert.match(await edit('b'), /^Error: old_text found 3 times in \/memories\/n\.md/)
    // Overlapping matches count: `aa` occurs twice in `aaa`.
    assert.match(await edit('aa'), /^Error: old_text found 2 times/)
    assert.match(await edit(''), /old_text is empty/)
    assert.equal(readFileSync(join(dir, 'n.md'), 'utf8'), 'aaa b b b')
    assert.match(
      await fails(tool, { command: 'edit', path: 'gone.md', old_text: 'a', new_text: 'b' }),
      /^Error: \/memories\/gone\.md does not exist/,
    )
    mkdirSync(join(dir, 'folder'))
    assert.match(
      await fails(tool, { command: 'edit', path: 'folder', old_text: 'a', new_text: 'b' }),
      /is a folder/,
    )
  })

  it('delete removes a file, and a folder with everything in it', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: 'a.md', content: 'a' })
    await ok(tool, { command: 'write', path: 'p/q/r.md', content: 'r' })
    await ok(tool, { command: 'write', path: 'p/s.md', content: 's' })
    mkdirSync(join(dir, 'hollow', 'inner'), { recursive: true })
    assert.equal(await ok(tool, { command: 'delete', path: 'a.md' }), 'Deleted /memories/a.md')
    assert.equal(
      await ok(tool, { command: 'delete', path: '/memories/p' }),
      'Deleted the folder /memories/p and the 2 files in it',
    )
    assert.equal(
      await ok(tool, { command: 'delete', path: 'hollow' }),
      'Deleted the folder /memories/hollow (it held no files)',
    )
    assert.deepEqual(visible(dir), [])
    assert.equal(
      await fails(tool, { command: 'delete', path: 'a.md' }),
      'Error: /memories/a.md does not exist',
    )
  })

  it('list shows every file recursively, sorted, with sizes and the total', async () => {
    const { dir, tool } = fresh({ maxTotalBytes: 5000 })
    await ok(tool, { command: 'write', path: 'zeta.md', content: 'z'.repeat(1234) })
    await ok(tool, { command: 'write', path: 'alpha/deep/er/x.md', content: 'x' })
    await ok(tool, { command: 'write', path: 'alpha/b.md', content: 'bb' })
    mkdirSync(join(dir, 'empty'))
    assert.equal(
      await ok(tool, { command: 'list' }),
      [
        '/memories/alpha/b.md (2 bytes)',
        '/memories/alpha/deep/er/x.md (1 byte)',
        '/memories/empty/ (empty folder)',
        '/memories/zeta.md (1,234 bytes)',
        'Total: 1,237 bytes in 3 files (limit: 5,000 bytes)',
      ].join('\n'),
    )
  })

  it('list escapes names that would forge lines', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: 'ok.md', content: 'o' })
    writeFileSync(join(dir, 'evil\nfake.md (1 byte)'), 'e')
    const lines = (await ok(tool, { command: 'list' })).split('\n')
    assert.deepEqual(lines, [
      '"/memories/evil\\nfake.md (1 byte)" (1 byte)',
      '/memories/ok.md (1 byte)',
      'Total: 2 bytes in 2 files (limit: 16,777,216 bytes)',
    ])
  })

  it('write refuses content with a NUL character', async () => {
    const { dir, tool } = fresh()
    assert.match(
      await fails(tool, { command: 'write', path: 'a.md', content: 'a\0b' }),
      /NUL character/,
    )
    assert.equal(existsSync(join(dir, 'a.md')), false)
  })

  it('write refuses a folder as the target', async () => {
    const { tool } = fresh()
    await ok(tool, { command: 'write', path: 'sub/a.md', content: 'a' })
    assert.match(
      await fails(tool, { command: 'write', path: 'sub', content: 'x' }),
      /\/memories\/sub is a folder/,
    )
    assert.match(
      await fails(tool, { command: 'write', path: 'sub/a.md/x', content: 'x' }),
      /is not a folder/,
    )
  })
})

describe('memory: paths', () => {
  it('accepts /memories/x, memories/x and x for the same file', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: '/memories/notes.md', content: 'one' })
    for (const path of ['/memories/notes.md', 'memories/notes.md', 'notes.md', './notes.md']) {
      assert.equal(await ok(tool, { command: 'read', path }), 'one', path)
    }
    await ok(tool, { command: 'edit', path: 'memories/notes.md', old_text: 'one', new_text: 'two' })
    await ok(tool, { command: 'edit', path: 'notes.md', old_text: 'two', new_text: 'three' })
    assert.equal(
      await ok(tool, { command: 'write', path: './memories/notes.md', content: 'four' }),
      'Overwrote /memories/notes.md (4 bytes)',
    )
    assert.deepEqual(visible(dir), ['notes.md'])
  })

  it('creates missing parent folders, 0700, for nested paths', async () => {
    const { dir, tool } = fresh()
    assert.equal(
      await ok(tool, { command: 'write', path: 'memories/projects/syntic/todo.md', content: 't' }),
      'Created /memories/projects/syntic/todo.md (1 byte)',
    )
    assert.equal(mode(join(dir, 'projects')), 0o700)
    assert.equal(mode(join(dir, 'projects', 'syntic')), 0o700)
    assert.equal(mode(join(dir, 'projects', 'syntic', 'todo.md')), 0o600)
    assert.equal(await ok(tool, { command: 'read', path: 'projects/syntic/todo.md' }), 't')
  })

  it('refuses the tool’s own reserved names', async () => {
    const { tool } = fresh()
    await ok(tool, { command: 'write', path: 'a.md', content: 'a' })
    for (const path of [
      '.syntic-lock',
      '/memories/.syntic-lock',
      'sub/.syntic-tmp-1',
      'memories/.syntic-x',
    ]) {
      assert.match(await fails(tool, { command: 'read', path }), /reserved/)
      assert.match(await fails(tool, { command: 'write', path, content: 'x' }), /reserved/)
      assert.match(await fails(tool, { command: 'delete', path }), /reserved/)
    }
  })
})

describe('memory: permissions', () => {
  for (const umask of [0, 0o022, 0o277]) {
    it(`files are 0600 and folders 0700 with umask ${umask.toString(8).padStart(3, '0')}`, async () => {
      const previous = process.umask(umask)
      try {
        const { dir, tool } = fresh()
        await ok(tool, { command: 'write', path: 'a/b/c.md', content: 'c' })
        await ok(tool, { command: 'write', path: 'top.md', content: 't' })
        await ok(tool, { command: 'edit', path: 'top.md', old_text: 't', new_text: 'T' })
        assert.equal(mode(dir), 0o700)
        assert.equal(mode(join(dir, 'a')), 0o700)
        assert.equal(mode(join(dir, 'a', 'b')), 0o700)
        assert.equal(mode(join(dir, 'a', 'b', 'c.md')), 0o600)
        assert.equal(mode(join(dir, 'top.md')), 0o600)
      } finally {
        process.umask(previous)
      }
    })
  }

  it('sets an existing, looser memory folder to 0700 on startup', async () => {
    const { dir, tool } = fresh()
    mkdirSync(dir, { mode: 0o755 })
    chmodSync(dir, 0o755)
    await ok(tool, { command: 'list' })
    assert.equal(mode(dir), 0o700)
  })

  it('overwriting a file someone loosened makes it 0600 again', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: 'a.md', content: 'a' })
    chmodSync(join(dir, 'a.md'), 0o644)
    await ok(tool, { command: 'write', path: 'a.md', content: 'b' })
    assert.equal(mode(join(dir, 'a.md')), 0o600)
  })
})

describe('memory: size limits', () => {
  it('refuses a write over the per-file limit and writes nothing', async () => {
    const { dir, tool } = fresh({ maxFileBytes: 100 })
    const output = await fails(tool, {
      command: 'write',
      path: 'new/a.md',
      content: 'x'.repeat(1500),
    })
    assert.match(output, /1,500 bytes/)
    assert.match(output, /limit of 100 bytes per file/)
    assert.match(output, /nothing was written/)
    assert.match(output, /split it/)
    assert.deepEqual(visible(dir), [])
    await ok(tool, { command: 'write', path: 'a.md', content: 'x'.repeat(100) })
    await fails(tool, { command: 'write', path: 'a.md', content: 'y'.repeat(101) })
    assert.equal(readFileSync(join(dir, 'a.md'), 'utf8'), 'x'.repeat(100))
  })

  it('counts bytes, not characters', async () => {
    const { tool } = fresh({ maxFileBytes: 10 })
    assert.match(
      await fails(tool, { command: 'write', path: 'a.md', content: 'éééééé' }),
      /12 bytes/,
    )
  })

  it('refuses an edit that grows a file over the limit and changes nothing', async () => {
    const { dir, tool } = fresh({ maxFileBytes: 20 })
    await ok(tool, { command: 'write', path: 'a.md', content: 'short text' })
    const output = await fails(tool, {
      command: 'edit',
      path: 'a.md',
      old_text: 'short',
      new_text: 'much much longer',
    })
    assert.match(output, /after this edit \/memories\/a\.md would be 21 bytes/)
    assert.match(output, /limit of 20 bytes per file/)
    assert.match(output, /nothing was changed/)
    assert.equal(readFileSync(join(dir, 'a.md'), 'utf8'), 'short text')
  })

  it('refuses a read of a planted file over the per-file limit', async () => {
    const { dir, tool } = fresh({ maxFileBytes: 10 })
    await ok(tool, { command: 'list' })
    writeFileSync(join(dir, 'huge.md'), 'h'.repeat(11))
    assert.match(
      await fails(tool, { command: 'read', path: 'huge.md' }),
      /11 bytes, over the limit of 10 bytes per file/,
    )
  })

  it('refuses writes and edits that push the total over the limit, writing nothing', async () => {
    const { dir, tool } = fresh({ maxTotalBytes: 100 })
    await ok(tool, { command: 'write', path: 'a.md', content: 'a'.repeat(60) })
    await ok(tool, { command: 'write', path: 'sub/b.md', content: 'b'.repeat(30) })
    const output = await fails(tool, {
      command: 'write',
      path: 'other/c.md',
      content: 'c'.repeat(20),
    })
    assert.match(output, /110 bytes in total/)
    assert.match(output, /limit of 100 bytes/)
    assert.match(output, /90 bytes used now/)
    assert.match(output, /nothing was written/)
    assert.match(output, /Delete or shorten/)
    assert.deepEqual(visible(dir), ['a.md', 'sub', 'sub/b.md'])
    // Overwriting counts the replaced file once: 60 -> 70 makes 100, exactly the limit.
    await ok(tool, { command: 'write', path: 'a.md', content: 'a'.repeat(70) })
    await fails(tool, { command: 'edit', path: 'a.md', old_text: 'aaa', new_text: 'aaaa' })
    await fails(tool, {
      command: 'edit',
      path: 'sub/b.md',
      old_text: 'b'.repeat(30),
      new_text: 'b'.repeat(31),
    })
    assert.equal(readFileSync(join(dir, 'a.md'), 'utf8'), 'a'.repeat(70))
    assert.equal(
      (await ok(tool, { command: 'list' })).split('\n').at(-1),
      'Total: 100 bytes in 2 files (limit: 100 bytes)',
    )
  })

  it('still lets a folder over a lowered limit shrink', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: 'a.md', content: 'a'.repeat(90) })
    const strict = new MemoryTool({ dir, maxTotalBytes: 50 })
    await fails(strict, { command: 'write', path: 'b.md', content: 'b' })
    await ok(strict, { command: 'write', path: 'a.md', content: 'a'.repeat(80) })
    await ok(strict, { command: 'edit', path: 'a.md', old_text: 'a'.repeat(80), new_text: 'a' })
    await ok(strict, { command: 'write', path: 'b.md', content: 'b' })
  })
})

describe('memory: file count limit', () => {
  it('refuses a new empty file beyond maxFiles and writes nothing', async () => {
    const { dir, tool } = fresh({ maxFiles: 3 })
    for (const name of ['a.md', 'b.md', 'sub/c.md']) {
      await ok(tool, { command: 'write', path: name, content: '' })
    }
    const output = await fails(tool, { command: 'write', path: 'new/d.md', content: '' })
    assert.equal(
      output,
      'Error: /memories already holds 3 files and folders (limit: 3); nothing was written. Merge related notes into one file, or delete files you no longer need, then try again.',
    )
    assert.deepEqual(visible(dir), ['a.md', 'b.md', 'sub', 'sub/c.md'])
    // Replacing a file that exists does not add one.
    await ok(tool, { command: 'write', path: 'a.md', content: 'merged notes' })
    await ok(tool, { command: 'delete', path: 'b.md' })
    await ok(tool, { command: 'write', path: 'd.md', content: '' })
  })

  it('counts empty folders and links, which weigh nothing either', async () => {
    const { dir, tool } = fresh({ maxFiles: 2 })
    await ok(tool, { command: 'list' })
    mkdirSync(join(dir, 'empty'))
    symlinkSync('/etc/hostname', join(dir, 'link'))
    assert.match(
      await fails(tool, { command: 'write', path: 'a.md', content: 'x' }),
      /already holds 2 files and folders \(limit: 2\)/,
    )
  })

  it('refuses a maxFiles that is not a positive integer', () => {
    for (const maxFiles of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => fresh({ maxFiles }), RangeError)
    }
  })

  it('stops at 1,000 by default, and cuts a long list with a note', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'list' })
    const pad = 'n'.repeat(40)
    for (let i = 0; i < 1000; i++) {
      writeFileSync(join(dir, `${String(i).padStart(4, '0')}-${pad}.md`), '')
    }
    assert.match(
      await fails(tool, { command: 'write', path: 'one-more.md', content: '' }),
      /already holds 1,000 files and folders \(limit: 1,000\)/,
    )
    assert.equal(existsSync(join(dir, 'one-more.md')), false)
    const output = await ok(tool, { command: 'list' })
    const lines = output.split('\n')
    // Each line is `/memories/0000-nnn….md (0 bytes)`, 68 characters and a newline.
    const shown = Math.floor(20_000 / 69)
    assert.equal(lines.length, shown + 2)
    assert.equal(lines[0], `/memories/0000-${pad}.md (0 bytes)`)
    assert.equal(
      lines.at(-2),
      `... and ${1000 - shown} more entries not shown (the list stops at 20,000 characters). Read or delete files you no longer need.`,
    )
    assert.equal(lines.at(-1), 'Total: 0 bytes in 1000 files (limit: 16,777,216 bytes)')
    assert.ok(output.length < 20_500)
  })
})

describe('memory: deleting the folder itself is refused', () => {
  const spellings = [
    '/memories',
    'memories',
    '/memories/',
    'memories/',
    '.',
    './',
    '/memories/.',
    '/memories/sub/..',
    'memories/sub/..',
    'sub/..',
    '//memories//',
  ]
  for (const path of spellings) {
    it(`refuses ${JSON.stringify(path)}`, async () => {
      const { dir, tool } = fresh()
      await ok(tool, { command: 'write', path: 'sub/keep.md', content: 'keep' })
      assert.equal(
        await fails(tool, { command: 'delete', path }),
        'Error: cannot delete /memories itself; delete the files or folders inside it one by one',
      )
      assert.equal(readFileSync(join(dir, 'sub', 'keep.md'), 'utf8'), 'keep')
    })
  }

  it('write and edit refuse the folder itself too', async () => {
    const { tool } = fresh()
    assert.match(
      await fails(tool, { command: 'write', path: '/memories', content: 'x' }),
      /memory folder itself/,
    )
    assert.match(
      await fails(tool, { command: 'edit', path: '.', old_text: 'a', new_text: 'b' }),
      /memory folder itself/,
    )
  })
})

describe('memory: hostile paths', () => {
  let outside: string
  let dir: string
  let tool: MemoryTool
  const SECRET = 'OUTSIDE-SECRET'

  before(async () => {
    outside = join(base, 'outside')
    mkdirSync(join(outside, 'dir'), { recursive: true })
    writeFileSync(join(outside, 'secret'), SECRET)
    writeFileSync(join(outside, 'dir', 'secret'), SECRET)
    ;({ dir, tool } = fresh())
    await ok(tool, { command: 'write', path: 'inside.md', content: 'inside' })
    symlinkSync(join(outside, 'secret'), join(dir, 'link.md'))
    symlinkSync(outside, join(dir, 'linkdir'))
    symlinkSync('../outside/secret', join(dir, 'rel.md'))
    symlinkSync('inside.md', join(dir, 'alias.md'))
  })

  function outsideIntact(): void {
    assert.deepEqual(readdirSync(outside, { recursive: true, encoding: 'utf8' }).sort(), [
      'dir',
      'dir/secret',
      'secret',
    ])
    assert.equal(readFileSync(join(outside, 'secret'), 'utf8'), SECRET)
    assert.equal(readFileSync(join(outside, 'dir', 'secret'), 'utf8'), SECRET)
  }

  const escapes = [
    '../x',
    '../../outside/secret',
    '/etc/passwd',
    '/memories/../../x',
    'memories/../x',
    '/memoriesX/a.md',
    '/memories/../outside/secret',
    'a/../../x',
  ]

  for (const path of escapes) {
    it(`refuses ${path} for every command`, async () => {
      for (const input of [
        { command: 'read', path },
        { command: 'write', path, content: 'pwned' },
        { command: 'edit', path, old_text: 'a', new_text: 'b' },
        { command: 'delete', path },
      ]) {
        const output = await fails(tool, input)
        assert.match(output, /is outside \/memories; use a path under \/memories/)
        assert.ok(output.includes(path), `the error quotes the path as given: ${output}`)
      }
      outsideIntact()
    })
  }

  it('refuses NUL, control characters and a 5000-character path', async () => {
    assert.match(await fails(tool, { command: 'read', path: 'a\0b' }), /NUL/)
    assert.match(await fails(tool, { command: 'write', path: 'a\0/../../x', content: 'x' }), /NUL/)
    assert.match(
      await fails(tool, { command: 'write', path: 'bad\nname.md', content: 'x' }),
      /control characters/,
    )
    const long = 'a'.repeat(5000)
    assert.match(await fails(tool, { command: 'write', path: long, content: 'x' }), /too long/)
    assert.match(await fails(tool, { command: 'read', path: long }), /too long/)
    assert.match(await fails(tool, { command: 'delete', path: long }), /too long/)
    assert.match(
      await fails(tool, { command: 'write', path: `${'b'.repeat(300)}.md`, content: 'x' }),
      /longer than 255 bytes/,
    )
    assert.match(await fails(tool, { command: 'read', path: '' }), /empty/)
  })

  it('a planted symlink to an outside file: read, write and edit are refused', async () => {
    for (const path of ['link.md', 'rel.md', '/memories/link.md']) {
      assert.match(
        await fails(tool, { command: 'read', path }),
        /resolves outside \/memories through a symbolic link/,
      )
      assert.match(
        await fails(tool, { command: 'write', path, content: 'pwned' }),
        /is a symbolic link/,
      )
      assert.match(
        await fails(tool, { command: 'edit', path, old_text: 'OUTSIDE', new_text: 'pwned' }),
        /is a symbolic link/,
      )
    }
    assert.ok(lstatSync(join(dir, 'link.md')).isSymbolicLink())
    outsideIntact()
  })

  it('a planted symlink to an outside folder: nothing goes through it', async () => {
    assert.match(await fails(tool, { command: 'read', path: 'linkdir/secret' }), /resolves outside/)
    assert.match(
      await fails(tool, { command: 'write', path: 'linkdir/new.md', content: 'pwned' }),
      /resolves outside/,
    )
    assert.match(
      await fails(tool, { command: 'write', path: 'linkdir/deeper/new.md', content: 'pwned' }),
      /resolves outside/,
    )
    assert.match(
      await fails(tool, {
        command: 'edit',
        path: 'linkdir/secret',
        old_text: 'OUTSIDE',
        new_text: 'x',
      }),
      /resolves outside/,
    )
    assert.match(
      await fails(tool, { command: 'delete', path: 'linkdir/secret' }),
      /resolves outside/,
    )
    assert.match(await fails(tool, { command: 'delete', path: 'linkdir/dir' }), /resolves outside/)
    outsideIntact()
  })

  it('list shows the links without following them or counting outside files', async () => {
    assert.equal(
      await ok(tool, { command: 'list' }),
      [
        '/memories/alias.md (symbolic link, not followed)',
        '/memories/inside.md (6 bytes)',
        '/memories/link.md (symbolic link, not followed)',
        '/memories/linkdir (symbolic link, not followed)',
        '/memories/rel.md (symbolic link, not followed)',
        'Total: 6 bytes in 1 file (limit: 16,777,216 bytes)',
      ].join('\n'),
    )
  })

  it('a link inside the folder to a memory file can be read', async () => {
    assert.equal(await ok(tool, { command: 'read', path: 'alias.md' }), 'inside')
  })

  it('deleting a folder that holds links removes the links, not their targets', async () => {
    const { dir: other, tool: second } = fresh()
    await ok(second, { command: 'write', path: 'box/keep.md', content: 'k' })
    symlinkSync(outside, join(other, 'box', 'out'))
    symlinkSync(join(outside, 'secret'), join(other, 'box', 'secret.md'))
    assert.equal(
      await ok(second, { command: 'delete', path: 'box' }),
      'Deleted the folder /memories/box and the 1 file in it',
    )
    assert.equal(existsSync(join(other, 'box')), false)
    outsideIntact()
  })

  it('delete removes only the link, never what it points to', async () => {
    assert.equal(
      await ok(tool, { command: 'delete', path: 'link.md' }),
      'Deleted the symbolic link /memories/link.md (what it pointed to was not touched)',
    )
    await ok(tool, { command: 'delete', path: 'linkdir' })
    await ok(tool, { command: 'delete', path: 'rel.md' })
    assert.equal(existsSync(join(dir, 'link.md')), false)
    assert.equal(existsSync(join(dir, 'linkdir')), false)
    outsideIntact()
  })
})

describe('memory: persistence and setup', () => {
  it('a new MemoryTool on the same folder sees what the last one wrote', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: 'user/prefs.md', content: 'prefers metric units' })
    const later = new MemoryTool({ dir })
    assert.equal(
      await ok(later, { command: 'read', path: 'user/prefs.md' }),
      'prefers metric units',
    )
    assert.match(await ok(later, { command: 'list' }), /\/memories\/user\/prefs\.md \(20 bytes\)/)
  })

  it('an unusable folder is an error result that does not reveal the real path', async () => {
    const file = join(base, 'not-a-folder')
    writeFileSync(file, 'x')
    const tool = new MemoryTool({ dir: file })
    const output = await fails(tool, { command: 'list' })
    assert.match(output, /the memory folder is not available/)
    assert.ok(!output.includes(base))
  })

  it('rejects bad options when constructed', () => {
    assert.throws(() => new MemoryTool({ dir: '' }), TypeError)
    assert.throws(() => new MemoryTool({ dir: base, maxFileBytes: 0 }), RangeError)
    assert.throws(() => new MemoryTool({ dir: base, maxTotalBytes: 1.5 }), RangeError)
    assert.equal(new MemoryTool({ dir: base }).name, 'syntic_memory')
  })
})

describe('memory: malformed input', () => {
  const { tool } = { tool: new MemoryTool({ dir: join(tmpdir(), 'unused-never-created') }) }

  const cases: [unknown, RegExp][] = [
    [null, /input must be a JSON object, got null/],
    ['list', /input must be a JSON object, got a string/],
    [42, /got a number/],
    [[{ command: 'list' }], /got an array/],
    [{}, /command must be one of list, read, write, edit, delete; got /],
    [{ command: 'view' }, /command must be one of .*; got "view"/],
    [{ command: 7 }, /got a number/],
    [{ command: 'read' }, /read needs the argument "path"/],
    [{ command: 'write', path: 'a.md' }, /write needs the argument "content"/],
    [{ command: 'edit', path: 'a.md', old_text: 'a' }, /needs the argument "new_text"/],
    [{ command: 'delete' }, /delete needs the argument "path"/],
    [{ command: 'read', path: 5 }, /"path" must be a string, got a number/],
    [{ command: 'write', path: 'a.md', content: { text: 'x' } }, /"content" must be a string/],
    [
      { command: 'edit', path: 'a.md', old_text: null, new_text: 'b' },
      /"old_text" must be a string, got null/,
    ],
    [{ command: 'list', path: '/memories' }, /unknown argument "path" for list/],
    [{ command: 'read', path: 'a.md', range: [1, 2] }, /unknown argument "range"/],
  ]
  for (const [input, expected] of cases) {
    it(`reports ${JSON.stringify(input)}`, async () => {
      assert.match(await fails(tool, input), expected)
    })
  }

  it('never throws, and touches no folder for invalid input', async () => {
    assert.equal(existsSync(join(tmpdir(), 'unused-never-created')), false)
  })
})
