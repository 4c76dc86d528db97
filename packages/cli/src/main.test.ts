import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const main = join(dirname(fileURLToPath(import.meta.url)), 'main.js')

interface Reply {
  id: unknown
  output: string
  is_error: boolean
}

/** Runs `syntic ARGS`, feeds it the lines, and returns its replies once it exits at EOF. */
async function session(
  args: string[],
  lines: string[],
): Promise<{ replies: Reply[]; code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [main, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString()
  })
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  child.stdin.end(lines.map((l) => `${l}\n`).join(''))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  const replies = stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Reply)
  return { replies, code, stderr }
}

describe('syntic tool (JSON-lines processes)', () => {
  let base: string
  before(() => {
    base = mkdtempSync(join(tmpdir(), 'syntic-cli-'))
  })
  after(() => rmSync(base, { recursive: true, force: true }))

  it('editor: create, view, replace, undo through the process', async () => {
    const root = join(base, 'ws')
    const { replies, code } = await session(
      [
        'tool',
        'editor',
        '--root',
        root,
        '--display-root',
        '/workspace',
        '--history-dir',
        join(base, 'h'),
      ],
      [
        '{"id": 1, "input": {"command": "create", "path": "/workspace/a.txt", "content": "one\\ntwo\\n"}}',
        '{"id": 2, "input": {"command": "view", "path": "a.txt"}}',
        '{"id": 3, "input": {"command": "replace", "path": "a.txt", "old_text": "two", "new_text": "2"}}',
        '{"id": 4, "input": {"command": "replace", "path": "a.txt", "old_text": "zzz", "new_text": "2"}}',
        '{"id": 5, "input": {"command": "view", "path": "/etc/passwd"}}',
        'garbage',
        '{"id": 6, "input": {"command": "undo", "path": "a.txt"}}',
      ],
    )
    assert.equal(code, 0)
    assert.deepEqual(
      replies.map((r) => [r.id, r.is_error]),
      [
        [1, false],
        [2, false],
        [3, false],
        [4, true],
        [5, true],
        [null, true],
        [6, false],
      ],
    )
    assert.match(replies[1]?.output ?? '', /1\tone\n\s+2\ttwo/)
    assert.match(replies[3]?.output ?? '', /found 0 times/)
    assert.match(replies[4]?.output ?? '', /outside \/workspace/)
    assert.equal(readFileSync(join(root, 'a.txt'), 'utf8'), 'one\ntwo\n')
  })

  it('memory: write and read back, files private', async () => {
    const dir = join(base, 'mem')
    const { replies } = await session(
      ['tool', 'memory', '--dir', dir],
      [
        '{"id": "w", "input": {"command": "write", "path": "/memories/notes.md", "content": "likes tea"}}',
        '{"id": "r", "input": {"command": "read", "path": "notes.md"}}',
        '{"id": "d", "input": {"command": "delete", "path": "/memories"}}',
      ],
    )
    assert.equal(replies[1]?.output, 'likes tea')
    assert.equal(replies[2]?.is_error, true)
    assert.equal(statSync(join(dir, 'notes.md')).mode & 0o777, 0o600)
  })

  it('shell: state carries over and destructive commands are declined by default', async () => {
    const cwd = join(base, 'ws')
    const { replies } = await session(
      ['tool', 'shell', '--cwd', cwd],
      [
        '{"id": 1, "input": {"command": "run", "cmd": "X=42; cd /tmp"}}',
        '{"id": 2, "input": {"command": "run", "cmd": "echo $X $PWD"}}',
        '{"id": 3, "input": {"command": "run", "cmd": "rm -rf ."}}',
      ],
    )
    assert.match(replies[1]?.output ?? '', /^42 \/tmp/)
    assert.match(replies[2]?.output ?? '', /declined/)
    assert.equal(statSync(join(cwd, 'a.txt')).isFile(), true)
  })

  it('definition prints the expanded tool, and bad options exit non-zero', () => {
    const ok = spawnSync(process.execPath, [
      main,
      'tool',
      'definition',
      'syntic_shell',
      '--max-output-chars',
      '20000',
    ])
    assert.equal(ok.status, 0)
    const definition = JSON.parse(ok.stdout.toString()) as { name: string; description: string }
    assert.equal(definition.name, 'syntic_shell')
    assert.match(definition.description, /20,?000/)
    const bad = spawnSync(process.execPath, [main, 'tool', 'definition', 'syntic_nope'])
    assert.notEqual(bad.status, 0)
    assert.match(bad.stderr.toString(), /unknown tool type/)
    const badRoot = spawnSync(process.execPath, [
      main,
      'tool',
      'definition',
      'syntic_memory',
      '--root',
      '../x',
    ])
    assert.notEqual(badRoot.status, 0)
  })

  it('refuses missing required options with usage help', () => {
    const result = spawnSync(process.execPath, [main, 'tool', 'editor'])
    assert.notEqual(result.status, 0)
    assert.match(result.stderr.toString(), /--root/)
  })

  it('memory: --display-root sets the folder the model sees; a bad one exits 2', async () => {
    const dir = join(base, 'mem-root')
    const { replies, code } = await session(
      ['tool', 'memory', '--dir', dir, '--display-root', '/agent/notes'],
      [
        '{"id": 1, "input": {"command": "write", "path": "agent/notes/a.md", "content": "x"}}',
        '{"id": 2, "input": {"command": "list"}}',
        '{"id": 3, "input": {"command": "read", "path": "/memories/a.md"}}',
        '{"id": 4, "input": {"command": "delete", "path": "/agent/notes/../../etc"}}',
      ],
    )
    assert.equal(code, 0)
    assert.deepEqual(
      replies.map((r) => [r.id, r.output]),
      [
        [1, 'Created /agent/notes/a.md (1 byte)'],
        [2, '/agent/notes/a.md (1 byte)\nTotal: 1 byte in 1 file (limit: 16,777,216 bytes)'],
        [3, 'Error: /memories/a.md is outside /agent/notes; use a path under /agent/notes'],
        [4, 'Error: /agent/notes/../../etc is outside /agent/notes; use a path under /agent/notes'],
      ],
    )
    assert.equal(readFileSync(join(dir, 'a.md'), 'utf8'), 'x')
    for (const root of ['notes', '/a/../b', '/a\nb', '']) {
      const bad = spawnSync(
        process.execPath,
        [main, 'tool', 'memory', '--dir', join(base, 'never'), '--display-root', root],
        { input: '{"id": 1, "input": {"command": "list"}}\n' },
      )
      assert.equal(bad.status, 2, root)
      assert.match(bad.stderr.toString(), /^syntic: displayRoot /, root)
      assert.equal(bad.stdout.toString(), '', root)
    }
    assert.throws(() => statSync(join(base, 'never')), { code: 'ENOENT' })
  })
})
