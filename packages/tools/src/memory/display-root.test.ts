import assert from 'node:assert/strict'
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
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ROOT_MAX_CHARS } from '@syntic/protocol'
import { type MemoryOptions, MemoryTool } from './memory.js'

const ROOT = '/agent/notes'

let base: string
let counter = 0

before(() => {
  base = mkdtempSync(join(tmpdir(), 'syntic-memory-root-'))
})

after(() => rmSync(base, { recursive: true, force: true }))

/** Tools made with a custom root: none of their outputs may mention the default one. */
const custom = new WeakSet<MemoryTool>()

function fresh(options: Omit<MemoryOptions, 'dir'> = {}) {
  const dir = join(base, `m${++counter}`)
  const tool = new MemoryTool({ dir, displayRoot: ROOT, ...options })
  custom.add(tool)
  return { dir, tool }
}

/** `/memories` in an output is a leak of the default root, unless the model's own input said it. */
function noDefaultRoot(tool: MemoryTool, input: unknown, output: string): void {
  if (custom.has(tool) && !JSON.stringify(input).includes('memories')) {
    assert.ok(!output.includes('/memories'), `the default root leaked into: ${output}`)
  }
}

async function ok(tool: MemoryTool, input: unknown): Promise<string> {
  const result = await tool.run(input)
  assert.equal(result.is_error, false, result.output)
  noDefaultRoot(tool, input, result.output)
  return result.output
}

async function fails(tool: MemoryTool, input: unknown): Promise<string> {
  const result = await tool.run(input)
  assert.equal(result.is_error, true, `expected an error, got: ${result.output}`)
  assert.match(result.output, /^Error: /)
  noDefaultRoot(tool, input, result.output)
  return result.output
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => !p.split('/').some((part) => part.startsWith('.syntic-')))
    .sort()
}

describe('memory with a custom display root: commands', () => {
  it('list names the custom root when empty and each file under it', async () => {
    const { tool } = fresh({ maxTotalBytes: 1000 })
    assert.equal(
      await ok(tool, { command: 'list' }),
      'No memories yet: /agent/notes is empty.\nTotal: 0 bytes in 0 files (limit: 1,000 bytes)',
    )
    await ok(tool, { command: 'write', path: 'b/c.md', content: 'cc' })
    await ok(tool, { command: 'write', path: 'a.md', content: 'a' })
    assert.equal(
      await ok(tool, { command: 'list' }),
      [
        '/agent/notes/a.md (1 byte)',
        '/agent/notes/b/c.md (2 bytes)',
        'Total: 3 bytes in 2 files (limit: 1,000 bytes)',
      ].join('\n'),
    )
  })

  it('write, read, edit and delete report paths under the custom root', async () => {
    const { dir, tool } = fresh()
    assert.equal(
      await ok(tool, { command: 'write', path: '/agent/notes/n.md', content: 'city: Paris\n' }),
      'Created /agent/notes/n.md (12 bytes)',
    )
    assert.equal(readFileSync(join(dir, 'n.md'), 'utf8'), 'city: Paris\n')
    assert.equal(
      await ok(tool, { command: 'write', path: 'n.md', content: 'city: Rome\n' }),
      'Overwrote /agent/notes/n.md (11 bytes)',
    )
    assert.equal(await ok(tool, { command: 'read', path: '/agent/notes/n.md' }), 'city: Rome\n')
    assert.equal(
      await ok(tool, { command: 'edit', path: 'n.md', old_text: 'Rome', new_text: 'Lyon' }),
      'Edited /agent/notes/n.md: replaced 1 occurrence of old_text (11 bytes now)',
    )
    await ok(tool, { command: 'write', path: 'p/q.md', content: 'q' })
    assert.equal(
      await ok(tool, { command: 'delete', path: '/agent/notes/p' }),
      'Deleted the folder /agent/notes/p and the 1 file in it',
    )
    assert.equal(await ok(tool, { command: 'delete', path: 'n.md' }), 'Deleted /agent/notes/n.md')
    assert.deepEqual(files(dir), [])
  })

  it('error messages name the custom root', async () => {
    const { dir, tool } = fresh({ maxFileBytes: 20, maxTotalBytes: 30 })
    await ok(tool, { command: 'write', path: 'a.md', content: 'x x' })
    assert.equal(
      await fails(tool, { command: 'read', path: 'gone.md' }),
      'Error: /agent/notes/gone.md does not exist',
    )
    assert.match(
      await fails(tool, { command: 'edit', path: 'a.md', old_text: 'x', new_text: 'y' }),
      /^Error: old_text found 2 times in \/agent\/notes\/a\.md;/,
    )
    assert.match(
      await fails(tool, { command: 'write', path: 'big.md', content: 'b'.repeat(21) }),
      /^Error: the content for \/agent\/notes\/big\.md is 21 bytes, over the limit of 20 bytes/,
    )
    await ok(tool, { command: 'write', path: 'b.md', content: 'b'.repeat(20) })
    assert.match(
      await fails(tool, { command: 'write', path: 'c.md', content: 'c'.repeat(10) }),
      /^Error: this change would bring \/agent\/notes to 33 bytes in total, over the limit of 30/,
    )
    assert.equal(
      await fails(tool, { command: 'delete', path: '/agent/notes' }),
      'Error: cannot delete /agent/notes itself; delete the files or folders inside it one by one',
    )
    assert.equal(
      await fails(tool, { command: 'write', path: 'agent/notes/', content: 'x' }),
      'Error: /agent/notes is the memory folder itself; give a file path such as /agent/notes/notes.md',
    )
    assert.equal(
      await fails(tool, { command: 'read', path: '.' }),
      'Error: /agent/notes is a folder; use list to see the files in it',
    )
    mkdirSync(join(dir, 'sub'))
    assert.match(
      await fails(tool, { command: 'write', path: 'sub', content: 'x' }),
      /^Error: \/agent\/notes\/sub is a folder; write needs a file path such as \/agent\/notes\/sub\/notes\.md/,
    )
    assert.match(
      await fails(tool, { command: 'read', path: '/agent/notes/.syntic-lock' }),
      /^Error: \/agent\/notes\/\.syntic-lock: names starting with "\.syntic-" are reserved/,
    )
  })

  it('the lock works under a custom root and leaves nothing behind', async () => {
    const { dir, tool } = fresh()
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ok(tool, { command: 'write', path: `f${i}.md`, content: `${i}` }),
      ),
    )
    // Nothing else: no lock or temp file left behind.
    assert.deepEqual(
      readdirSync(dir).sort(),
      Array.from({ length: 8 }, (_, i) => `f${i}.md`),
    )
  })

  it('a lock name blocked by a planted folder is reported under the custom root', async () => {
    const { dir, tool } = fresh()
    mkdirSync(dir, { recursive: true })
    mkdirSync(join(dir, '.syntic-lock'))
    assert.equal(
      await fails(tool, { command: 'write', path: 'a.md', content: 'a' }),
      'Error: /agent/notes/.syntic-lock is a folder',
    )
    assert.equal(existsSync(join(dir, 'a.md')), false)
  })
})

describe('memory with a custom display root: paths', () => {
  it('accepts the root, the root without its slash, and a bare name for the same file', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: 'x.md', content: 'one' })
    for (const path of [
      '/agent/notes/x.md',
      'agent/notes/x.md',
      './agent/notes/x.md',
      'x.md',
      './x.md',
      '/agent/notes/../notes/x.md',
    ]) {
      assert.equal(await ok(tool, { command: 'read', path }), 'one', path)
    }
    assert.equal(
      await ok(tool, { command: 'write', path: 'agent/notes/x.md', content: 'two' }),
      'Overwrote /agent/notes/x.md (3 bytes)',
    )
    assert.deepEqual(files(dir), ['x.md'])
  })

  it('memories/ and part of the root are ordinary relative names under a custom root', async () => {
    const { dir, tool } = fresh()
    assert.equal(
      await ok(tool, { command: 'write', path: 'memories/x.md', content: 'm' }),
      'Created /agent/notes/memories/x.md (1 byte)',
    )
    assert.equal(
      await ok(tool, { command: 'write', path: 'agent/x.md', content: 'a' }),
      'Created /agent/notes/agent/x.md (1 byte)',
    )
    assert.equal(
      await ok(tool, { command: 'write', path: 'agent/notesX.md', content: 'n' }),
      'Created /agent/notes/agent/notesX.md (1 byte)',
    )
    assert.deepEqual(files(dir), [
      'agent',
      'agent/notesX.md',
      'agent/x.md',
      'memories',
      'memories/x.md',
    ])
  })

  it('a root with characters special in patterns is matched literally', async () => {
    const { dir, tool } = fresh({ displayRoot: '/a.b+(c)' })
    assert.equal(
      await ok(tool, { command: 'write', path: 'a.b+(c)/x.md', content: 'x' }),
      'Created /a.b+(c)/x.md (1 byte)',
    )
    assert.equal(
      await ok(tool, { command: 'write', path: 'aXb+(c)/y.md', content: 'y' }),
      'Created /a.b+(c)/aXb+(c)/y.md (1 byte)',
    )
    assert.match(
      await fails(tool, { command: 'read', path: '/aXb+(c)/x.md' }),
      /is outside \/a\.b\+\(c\)/,
    )
    assert.deepEqual(files(dir), ['aXb+(c)', 'aXb+(c)/y.md', 'x.md'])
  })

  it('a trailing slash on the option is dropped', async () => {
    const { tool } = fresh({ displayRoot: '/agent/notes/' })
    assert.equal(
      await ok(tool, { command: 'write', path: 'agent/notes/x.md', content: 'x' }),
      'Created /agent/notes/x.md (1 byte)',
    )
  })

  it('the root / has no shorthand and maps every absolute path inside', async () => {
    const { dir, tool } = fresh({ displayRoot: '/' })
    assert.equal(
      await ok(tool, { command: 'write', path: 'notes.md', content: 'n' }),
      'Created /notes.md (1 byte)',
    )
    assert.equal(
      await ok(tool, { command: 'write', path: '/etc/passwd', content: 'p' }),
      'Created /etc/passwd (1 byte)',
    )
    assert.equal(readFileSync(join(dir, 'etc', 'passwd'), 'utf8'), 'p')
    assert.equal(
      await ok(tool, { command: 'list' }),
      '/etc/passwd (1 byte)\n/notes.md (1 byte)\nTotal: 2 bytes in 2 files (limit: 16,777,216 bytes)',
    )
    assert.equal(
      await fails(tool, { command: 'delete', path: '/' }),
      'Error: cannot delete / itself; delete the files or folders inside it one by one',
    )
    assert.equal(
      await fails(tool, { command: 'read', path: '../x' }),
      'Error: ../x is outside /; use a path under /',
    )
  })

  it('two tools on one folder with different roots see the same files', async () => {
    const { dir, tool } = fresh()
    await ok(tool, { command: 'write', path: 'shared.md', content: 's' })
    const other = new MemoryTool({ dir })
    assert.equal(await ok(other, { command: 'read', path: '/memories/shared.md' }), 's')
    assert.match(
      await fails(other, { command: 'read', path: '/agent/notes/shared.md' }),
      /is outside \/memories/,
    )
  })
})

describe('memory with a custom display root: escapes', () => {
  let dir: string
  let tool: MemoryTool
  let outside: string

  before(async () => {
    outside = join(base, 'outside')
    mkdirSync(outside, { recursive: true })
    writeFileSync(join(outside, 'secret'), 'SECRET')
    ;({ dir, tool } = fresh())
    await ok(tool, { command: 'write', path: 'inside.md', content: 'inside' })
    symlinkSync(join(outside, 'secret'), join(dir, 'link.md'))
  })

  const escapes = [
    '../x',
    '/memories/x.md',
    '/agent/x.md',
    '/agent/notesX/a.md',
    '/agent/notes/../x.md',
    '/agent/notes/../../etc/passwd',
    'agent/notes/../x.md',
    'agent/notes/../../../outside/secret',
    './agent/notes/..',
    'a/../../x',
    '/etc/passwd',
  ]

  for (const path of escapes) {
    it(`refuses ${path} for every command, naming the custom root`, async () => {
      for (const input of [
        { command: 'read', path },
        { command: 'write', path, content: 'pwned' },
        { command: 'edit', path, old_text: 'a', new_text: 'b' },
        { command: 'delete', path },
      ]) {
        assert.equal(
          await fails(tool, input),
          `Error: ${path} is outside /agent/notes; use a path under /agent/notes`,
        )
      }
      assert.equal(readFileSync(join(outside, 'secret'), 'utf8'), 'SECRET')
      assert.deepEqual(files(dir), ['inside.md', 'link.md'])
    })
  }

  it('a planted link to an outside file is refused, naming the custom root', async () => {
    assert.equal(
      await fails(tool, { command: 'read', path: 'agent/notes/link.md' }),
      'Error: /agent/notes/link.md resolves outside /agent/notes through a symbolic link; use a path under /agent/notes',
    )
    assert.match(
      await fails(tool, { command: 'write', path: 'link.md', content: 'pwned' }),
      /^Error: \/agent\/notes\/link\.md is a symbolic link/,
    )
    assert.equal(readFileSync(join(outside, 'secret'), 'utf8'), 'SECRET')
  })

  it('refuses control characters and over-long paths as with the default root', async () => {
    assert.match(await fails(tool, { command: 'read', path: 'agent/notes/a\0b' }), /NUL/)
    assert.match(
      await fails(tool, { command: 'write', path: 'agent/notes/a\nb.md', content: 'x' }),
      /control characters/,
    )
    assert.match(
      await fails(tool, {
        command: 'write',
        path: `agent/notes/${'a'.repeat(5000)}`,
        content: 'x',
      }),
      /too long/,
    )
  })
})

describe('memory with a custom display root: options', () => {
  const bad: [unknown, RegExp][] = [
    ['', /absolute path/],
    ['memories', /starting with "\/", such as "\/memories"; got "memories"/],
    ['agent/notes', /absolute path/],
    ['./agent', /absolute path/],
    ['/agent/../x', /normalised path without/],
    ['/agent/..', /normalised path without/],
    ['/..', /normalised path without/],
    ['/agent/./notes', /normalised path without/],
    ['/agent//notes', /normalised path without/],
    ['///', /normalised path without/],
    ['/agent/notes//', /normalised path without/],
    ['/a\0b', /control/],
    ['/a\nb', /control/],
    ['/a\u001bb', /control/],
    ['/a\u0085b', /control/],
    ['/a\u2028b', /line-separator/],
    ['/a\u202eb', /control/],
    [`/${'a'.repeat(ROOT_MAX_CHARS)}`, /characters long; the limit is 1024/],
    [42, /must be a string/],
    [null, /must be a string/],
    [['/memories'], /must be a string/],
  ]
  for (const [displayRoot, expected] of bad) {
    it(`refuses displayRoot ${JSON.stringify(displayRoot).slice(0, 40)}`, () => {
      assert.throws(
        () => new MemoryTool({ dir: base, displayRoot: displayRoot as string }),
        (error: unknown) =>
          error instanceof TypeError &&
          error.message.startsWith('displayRoot ') &&
          expected.test(error.message),
      )
    })
  }

  it('accepts /, a trailing slash, spaces and non-ASCII names, and the longest allowed', () => {
    for (const displayRoot of [
      '/',
      '//',
      '/memories',
      '/memories/',
      '/my notes/é',
      `/${'a'.repeat(ROOT_MAX_CHARS - 1)}`,
    ]) {
      assert.equal(new MemoryTool({ dir: base, displayRoot }).name, 'syntic_memory')
    }
  })

  it('a bad option touches no folder', () => {
    const dir = join(base, 'never-created')
    assert.throws(() => new MemoryTool({ dir, displayRoot: '../x' }), TypeError)
    assert.equal(existsSync(dir), false)
  })
})
