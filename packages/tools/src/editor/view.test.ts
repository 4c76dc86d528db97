import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { fails, ok, type Sandbox, sandbox } from './test-support.js'

let box: Sandbox

beforeEach(() => {
  box = sandbox()
})
afterEach(() => box.cleanup())

function numberedLines(from: number, to: number, text: (n: number) => string): string {
  const out: string[] = []
  for (let n = from; n <= to; n++) out.push(`${String(n).padStart(6)}\t${text(n)}`)
  return out.join('\n')
}

describe('view a file', () => {
  beforeEach(() => {
    writeFileSync(box.at('five.txt'), 'one\ntwo\n\tthree\nfour\nfive\n')
  })

  it('shows every line cat -n style', async () => {
    const out = await ok(box.tool, { command: 'view', path: 'five.txt' })
    assert.equal(out, '     1\tone\n     2\ttwo\n     3\t\tthree\n     4\tfour\n     5\tfive')
  })

  it('accepts the display path and ./ forms', async () => {
    const a = await ok(box.tool, { command: 'view', path: '/workspace/five.txt' })
    const b = await ok(box.tool, { command: 'view', path: './five.txt' })
    assert.equal(a, b)
  })

  it('shows a range, 1-based and inclusive', async () => {
    const out = await ok(box.tool, { command: 'view', path: 'five.txt', range: [2, 3] })
    assert.equal(out, '     2\ttwo\n     3\t\tthree')
  })

  it('treats end -1 as the end of the file', async () => {
    const out = await ok(box.tool, { command: 'view', path: 'five.txt', range: [4, -1] })
    assert.equal(out, '     4\tfour\n     5\tfive')
  })

  it('stops at the last line when end is beyond it', async () => {
    const out = await ok(box.tool, { command: 'view', path: 'five.txt', range: [5, 99] })
    assert.equal(out, '     5\tfive')
  })

  it('rejects a start below 1, saying how many lines there are', async () => {
    const out = await fails(box.tool, { command: 'view', path: 'five.txt', range: [0, 2] })
    assert.equal(
      out,
      'Error: range start must be 1 or more, got 0; /workspace/five.txt has 5 lines',
    )
  })

  it('rejects a start beyond the last line', async () => {
    const out = await fails(box.tool, { command: 'view', path: 'five.txt', range: [6, -1] })
    assert.equal(
      out,
      'Error: range start 6 is beyond the end of the file; /workspace/five.txt has 5 lines',
    )
  })

  it('rejects an end before the start', async () => {
    const out = await fails(box.tool, { command: 'view', path: 'five.txt', range: [3, 2] })
    assert.match(out, /^Error: range end 2 is before start 3; use -1 .*has 5 lines\)$/)
    await fails(box.tool, { command: 'view', path: 'five.txt', range: [3, -2] })
  })

  it('says an empty file is empty, range or not', async () => {
    writeFileSync(box.at('empty.txt'), '')
    const out = await ok(box.tool, { command: 'view', path: 'empty.txt' })
    assert.equal(out, '/workspace/empty.txt is empty (0 lines)')
    assert.equal(
      await ok(box.tool, { command: 'view', path: 'empty.txt', range: [1, -1] }),
      '/workspace/empty.txt is empty (0 lines)',
    )
  })

  it('shows a last line without a final newline', async () => {
    writeFileSync(box.at('open.txt'), 'a\nb')
    assert.equal(await ok(box.tool, { command: 'view', path: 'open.txt' }), '     1\ta\n     2\tb')
  })

  it('hides the CR of CRLF endings and a byte order mark', async () => {
    writeFileSync(box.at('dos.txt'), '\ufeffa\r\nb\r\n')
    assert.equal(await ok(box.tool, { command: 'view', path: 'dos.txt' }), '     1\ta\n     2\tb')
  })

  it('refuses a binary file', async () => {
    writeFileSync(box.at('x.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]))
    const out = await fails(box.tool, { command: 'view', path: 'x.png' })
    assert.equal(
      out,
      'Error: /workspace/x.png is a binary file; the editor only handles UTF-8 text',
    )
  })

  it('refuses invalid UTF-8 in the lines shown, and only there', async () => {
    writeFileSync(
      box.at('latin1.txt'),
      Buffer.concat([Buffer.from('ok\nok\ncaf'), Buffer.from([0xe9, 0x0a])]),
    )
    const out = await fails(box.tool, { command: 'view', path: 'latin1.txt' })
    assert.equal(
      out,
      'Error: /workspace/latin1.txt is not valid UTF-8 text (line 3); the editor only handles UTF-8 text',
    )
    const head = await ok(box.tool, { command: 'view', path: 'latin1.txt', range: [1, 2] })
    assert.equal(head, '     1\tok\n     2\tok')
  })

  it('refuses a FIFO without blocking', async () => {
    execFileSync('mkfifo', [box.at('pipe')])
    const out = await fails(box.tool, { command: 'view', path: 'pipe' })
    assert.equal(
      out,
      'Error: /workspace/pipe is a named pipe (FIFO), not a regular file; the editor only handles regular files',
    )
  })

  it('says when the file does not exist', async () => {
    const out = await fails(box.tool, { command: 'view', path: 'nope.txt' })
    assert.equal(out, 'Error: /workspace/nope.txt does not exist')
  })

  it('cuts long output at a line boundary with a note saying what to view next', async () => {
    const tool = box.restart({ maxOutputChars: 1000 })
    writeFileSync(
      box.at('long.txt'),
      Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join('\n'),
    )
    const out = await ok(tool, { command: 'view', path: 'long.txt' })
    assert.ok(out.length <= 1000, `output is ${out.length} characters`)
    const lines = out.split('\n')
    const note = lines.at(-1) ?? ''
    const match =
      /^\[output truncated at line (\d+) of 500; view a narrower range, e.g. range: \[(\d+), (\d+)\]\]$/.exec(
        note,
      )
    assert.ok(match, note)
    const last = Number(match[1])
    assert.equal(lines.length - 1, last)
    assert.equal(lines.at(-2), `${String(last).padStart(6)}\tline ${last}`)
    assert.equal(Number(match[2]), last + 1)
    // The suggested range is the next page, and it works.
    const next = await ok(tool, {
      command: 'view',
      path: 'long.txt',
      range: [Number(match[2]), Number(match[3])],
    })
    assert.ok(next.startsWith(`${String(last + 1).padStart(6)}\tline ${last + 1}\n`))
  })

  it('shows the start of a line too long for the output, with a note', async () => {
    const tool = box.restart({ maxOutputChars: 1000 })
    writeFileSync(box.at('wide.txt'), `${'é'.repeat(5000)}\nshort\n`)
    const out = await ok(tool, { command: 'view', path: 'wide.txt' })
    const [first, ...notes] = out.split('\n')
    assert.ok(first?.startsWith('     1\téééé'))
    assert.ok((first?.length ?? 0) <= 1000)
    assert.deepEqual(notes, [
      '[line 1 is too long to show whole; only its start is shown]',
      '[output truncated at line 1 of 2; view a narrower range, e.g. range: [2, 2]]',
    ])
  })

  it('refuses a range on a folder', async () => {
    mkdirSync(box.at('src'))
    const out = await fails(box.tool, { command: 'view', path: 'src', range: [1, 2] })
    assert.equal(out, 'Error: range only applies to files, and /workspace/src is a folder')
  })
})

describe('view a folder', () => {
  it('lists two levels, sorted, folders marked, hidden entries counted', async () => {
    mkdirSync(box.at('src/lib/deep'), { recursive: true })
    mkdirSync(box.at('docs'))
    mkdirSync(box.at('.git'))
    writeFileSync(box.at('.git/HEAD'), '')
    writeFileSync(box.at('.env'), '')
    writeFileSync(box.at('README.md'), '')
    writeFileSync(box.at('src/main.ts'), '')
    writeFileSync(box.at('src/.hidden'), '')
    writeFileSync(box.at('src/lib/deep/too-deep.ts'), '')
    writeFileSync(box.at('src/lib/util.ts'), '')
    symlinkSync('src', box.at('link'))
    const out = await ok(box.tool, { command: 'view', path: '/workspace' })
    assert.equal(
      out,
      [
        '/workspace/',
        '  README.md',
        '  docs/',
        '  link@',
        '  src/',
        '    lib/',
        '    main.ts',
        '(3 hidden entries not shown)',
      ].join('\n'),
    )
  })

  it('lists a subfolder under its own path', async () => {
    mkdirSync(box.at('src/lib'), { recursive: true })
    writeFileSync(box.at('src/lib/util.ts'), '')
    writeFileSync(box.at('src/main.ts'), '')
    const out = await ok(box.tool, { command: 'view', path: 'src' })
    assert.equal(out, '/workspace/src/\n  lib/\n    util.ts\n  main.ts')
  })

  it('says a folder is empty', async () => {
    mkdirSync(box.at('empty'))
    assert.equal(
      await ok(box.tool, { command: 'view', path: 'empty' }),
      '/workspace/empty/\n  (empty folder)',
    )
  })

  it('caps the number of entries with a note', async () => {
    mkdirSync(box.at('many'))
    for (let i = 0; i < 1200; i++) writeFileSync(box.at(`many/f${String(i).padStart(4, '0')}`), '')
    const tool = box.restart({ maxOutputChars: 1_000_000 })
    const out = await ok(tool, { command: 'view', path: 'many' })
    const lines = out.split('\n')
    assert.equal(lines.length, 1 + 1000 + 1)
    assert.equal(
      lines.at(-1),
      '(listing stopped at 1000 entries; view a subfolder to see the rest)',
    )
  })

  it('keeps a listing within the output limit', async () => {
    mkdirSync(box.at('many'))
    for (let i = 0; i < 300; i++)
      writeFileSync(box.at(`many/file-${String(i).padStart(4, '0')}.txt`), '')
    const tool = box.restart({ maxOutputChars: 1000 })
    const out = await ok(tool, { command: 'view', path: 'many' })
    assert.ok(out.length <= 1000, `listing is ${out.length} characters`)
    assert.match(
      out.split('\n').at(-1) ?? '',
      /^\(listing cut after \d+ entries to fit the output limit/,
    )
  })
})

describe('view a large file', () => {
  it('pages a 100 MB file near its end without reading it into memory', async () => {
    // 64-byte lines: an 8-digit number, a space, 54 letters, a newline.
    const lineOf = (n: number) =>
      `${String(n).padStart(8, '0')} ${'abcdefghijklmnopqrstuvwxyz'.repeat(3).slice(0, 54)}`
    const linesPerChunk = 16_384
    const chunks = 100
    const total = linesPerChunk * chunks
    const handle = await open(box.at('big.log'), 'w')
    try {
      for (let c = 0; c < chunks; c++) {
        let text = ''
        for (let i = 1; i <= linesPerChunk; i++) text += `${lineOf(c * linesPerChunk + i)}\n`
        await handle.write(text)
      }
    } finally {
      await handle.close()
    }

    global.gc?.()
    const before = process.memoryUsage().rss
    let peak = before
    const range: [number, number] = [total - 10, total - 5]
    for (let i = 0; i < 5; i++) {
      const out = await ok(box.tool, { command: 'view', path: 'big.log', range })
      assert.equal(out, numberedLines(total - 10, total - 5, lineOf))
      peak = Math.max(peak, process.memoryUsage().rss)
    }
    const growth = (peak - before) / (1024 * 1024)
    assert.ok(growth < 40, `RSS grew by ${growth.toFixed(1)} MiB`)

    // Without a range: the first lines, then the total.
    const head = await ok(box.tool, { command: 'view', path: 'big.log' })
    assert.ok(head.startsWith(`${numberedLines(1, 3, lineOf)}\n`))
    assert.match(
      head.split('\n').at(-1) ?? '',
      new RegExp(`^\\[output truncated at line \\d+ of ${total};`),
    )

    // Lines on both sides of an index stride boundary.
    const mid = await ok(box.tool, { command: 'view', path: 'big.log', range: [1023, 1026] })
    assert.equal(mid, numberedLines(1023, 1026, lineOf))
    const out = await fails(box.tool, { command: 'view', path: 'big.log', range: [total + 1, -1] })
    assert.match(out, new RegExp(`has ${total} lines$`))
  })

  it('notices a change to a cached file', async () => {
    const line = 'x'.repeat(99)
    writeFileSync(box.at('grow.txt'), `${line}\n`.repeat(20_000))
    await ok(box.tool, { command: 'view', path: 'grow.txt', range: [20_000, 20_000] })
    writeFileSync(box.at('grow.txt'), `${`${line}\n`.repeat(20_000)}new last line\n`)
    const out = await ok(box.tool, { command: 'view', path: 'grow.txt', range: [20_001, -1] })
    assert.equal(out, ' 20001\tnew last line')
  })
})
